/** How long quitting waits for the host to close before it quits anyway. */
export const QUIT_WAIT_MS = 10_000;

/**
 * Closes the host before the app quits, but waits at most `timeoutMs`: closing waits on running sessions,
 * MCP servers and the device client, and one that never ends must not leave an app that only SIGKILL
 * ends. Never rejects; says in the log when it gave up.
 */
export async function closeBeforeQuit(
  close: () => Promise<void>,
  timeoutMs = QUIT_WAIT_MS,
  log: (message: string) => void = console.error,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const outcome = await Promise.race([close().then(() => 'closed' as const), gaveUp]);
    if (outcome === 'timeout') {
      log(`[deskhand] gave up waiting for the host to close after ${timeoutMs / 1000} s (a session, MCP server or the device client did not end): quitting anyway`);
    }
  } catch (error) {
    log(`[deskhand] closing the host: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}
