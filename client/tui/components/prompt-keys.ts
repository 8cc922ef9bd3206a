import type { Key } from 'ink';
import {
  deleteBackward,
  deleteToLineEnd,
  deleteToLineStart,
  deleteWordBackward,
  insertText,
  moveDown,
  moveLeft,
  moveRight,
  moveToEnd,
  moveToLineEnd,
  moveToLineStart,
  moveToStart,
  moveUp,
  type PromptBuffer,
} from '../input/prompt-buffer.js';

/**
 * A key's edit of the draft, or undefined when the key is not an edit. Ink 6 reports the usual
 * Backspace key as `delete`, so both delete backward. Pasted text lands whole, line breaks kept.
 */
export function editPrompt(buffer: PromptBuffer, input: string, key: Key, width: number): PromptBuffer | undefined {
  if (key.backspace || key.delete) return deleteBackward(buffer);
  if (key.leftArrow) return moveLeft(buffer);
  if (key.rightArrow) return moveRight(buffer);
  if (key.upArrow) return moveUp(buffer, width);
  if (key.downArrow) return moveDown(buffer, width);
  if (key.home) return moveToStart(buffer);
  if (key.end) return moveToEnd(buffer);
  if (key.ctrl) {
    switch (input) {
      case 'a':
        return moveToLineStart(buffer);
      case 'e':
        return moveToLineEnd(buffer);
      case 'w':
        return deleteWordBackward(buffer);
      case 'k':
        return deleteToLineEnd(buffer);
      case 'u':
        return deleteToLineStart(buffer);
      case 'b':
        return moveLeft(buffer);
      case 'f':
        return moveRight(buffer);
      default:
        return undefined;
    }
  }
  if (key.meta || key.tab || key.escape || key.return || !input) return undefined;
  return insertText(buffer, input.replace(/\r\n?/g, '\n'));
}
