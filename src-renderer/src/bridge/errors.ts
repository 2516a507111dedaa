import type { ErrorCode } from '../../../src-main/protocol';

/** The host refused a command; `message` is the host's own words. */
export class HostCommandError extends Error {
  override readonly name = 'HostCommandError';

  constructor(
    message: string,
    readonly code: ErrorCode,
  ) {
    super(message);
  }
}

export function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
