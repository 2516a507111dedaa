import { useCallback, useEffect, useRef, useState } from 'react';
import type { ScreenshotRef } from '../../../src-main/protocol';
import { useBridge, useDeskhand } from '../store';

export interface ScreenshotUrl {
  /** The address for the <img>, once loaded. */
  url: string | null;
  /** The last load failed (it may be being tried again: see `retrying`). */
  failed: boolean;
  /** A failed load is being tried again. */
  retrying: boolean;
  /** Tries a failed load again, here and wherever else the page shows a screenshot that failed. */
  retry(): void;
}

/** Told when the user asks for the screenshots that failed to be loaded again. */
const retryRequests = new EventTarget();

/** A screenshot's address while the component shows it (see Bridge.screenshot); `ref` null: none. */
export function useScreenshotUrl(ref: ScreenshotRef | null): ScreenshotUrl {
  const bridge = useBridge();
  const [loaded, setLoaded] = useState<{ key: string; url: string | null; attempt: number } | null>(null);
  const sessionId = ref?.sessionId;
  const file = ref?.file;
  const width = ref?.width ?? 0;
  const height = ref?.height ?? 0;
  const key = sessionId !== undefined && file !== undefined ? `${sessionId}/${file}` : null;
  const failed = key !== null && loaded?.key === key && loaded.url === null;
  // A load that failed (the host was out of reach, say) is tried again once the connection comes back:
  // on the way back to connected, not on the failure itself nor while the host is still away. One that
  // fails again (or failed while connected) is tried again when the user asks (retry).
  const connected = useDeskhand((state) => state.connection === 'connected');
  const wasConnected = useRef(connected);
  const [retries, setRetries] = useState(0);
  const failedNow = useRef(failed);
  useEffect(() => {
    failedNow.current = failed;
  }, [failed]);
  useEffect(() => {
    if (connected && !wasConnected.current && failed) setRetries((count) => count + 1);
    wasConnected.current = connected;
  }, [connected, failed]);
  useEffect(() => {
    const onRetry = (): void => {
      if (failedNow.current) setRetries((count) => count + 1);
    };
    retryRequests.addEventListener('retry', onRetry);
    return () => retryRequests.removeEventListener('retry', onRetry);
  }, []);
  const retry = useCallback(() => {
    retryRequests.dispatchEvent(new Event('retry'));
  }, []);

  useEffect(() => {
    if (sessionId === undefined || file === undefined || key === null) return;
    const lease = bridge.screenshot({ sessionId, file, width, height });
    let shown = true;
    lease.url.then(
      (url) => shown && setLoaded({ key, url, attempt: retries }),
      () => shown && setLoaded({ key, url: null, attempt: retries }),
    );
    return () => {
      shown = false;
      lease.release();
    };
  }, [bridge, key, sessionId, file, width, height, retries]);

  if (key === null || loaded?.key !== key) return { url: null, failed: false, retrying: false, retry };
  return { url: loaded.url, failed, retrying: failed && loaded.attempt !== retries, retry };
}
