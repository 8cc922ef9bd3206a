/**
 * Bad input from whoever asked (a flag, a session id, a request body, a config key): every front
 * end shows its message as it is, with no stack trace: the CLI exits with `exitCode`, the server
 * answers 400, ACP and the terminal UI show it where the person typed.
 */
export class InputError extends Error {
  override name = 'InputError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
