import type { ErrorCode } from '../protocol';

/** A command the host refuses, with the protocol's error code: what the user asked cannot be done as asked. */
export class CommandError extends Error {
  override name = 'CommandError';

  constructor(
    readonly code: Exclude<ErrorCode, 'internal'>,
    message: string,
  ) {
    super(message);
  }
}
