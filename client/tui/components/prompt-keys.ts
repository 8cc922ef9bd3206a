import type { Key } from 'ink';
import { backspace, insertText, moveLeft, moveRight, type PromptBuffer } from '../input/prompt-buffer.js';

/** A key's edit of the draft, or undefined when the key is not an edit. Pasted text lands whole, line breaks kept. */
export function editPrompt(buffer: PromptBuffer, input: string, key: Key): PromptBuffer | undefined {
  if (key.backspace || key.delete) return backspace(buffer);
  if (key.leftArrow) return moveLeft(buffer);
  if (key.rightArrow) return moveRight(buffer);
  if (key.ctrl || key.meta || key.tab || key.escape || key.upArrow || key.downArrow) return undefined;
  if (!input) return undefined;
  return insertText(buffer, input.replace(/\r\n?/g, '\n'));
}
