import { useEffect, useRef, useState } from 'react';
import type { ScreenshotRef } from '../../../src-main/protocol';
import { useBridge, useDeskhand } from '../store';

export interface ScreenshotUrl {
  /** The address for the <img>, once loaded. */
  url: string | null;
  failed: boolean;
}

/** A screenshot's address while the component shows it (see Bridge.screenshot); `ref` null: none. */
export function useScreenshotUrl(ref: ScreenshotRef | null): ScreenshotUrl {
  const bridge = useBridge();
  const [loaded, setLoaded] = useState<{ key: string; url: string | null } | null>(null);
  const sessionId = ref?.sessionId;
  const file = ref?.file;
  const width = ref?.width ?? 0;
  const height = ref?.height ?? 0;
  const key = sessionId !== undefined && file !== undefined ? `${sessionId}/${file}` : null;
  const failed = key !== null && loaded?.key === key && loaded.url === null;
  // A load that failed (the host was out of reach, say) is tried again once the connection comes back:
  // on the way back to connected, not on the failure itself nor while the host is still away.
  const connected = useDeskhand((state) => state.connection === 'connected');
  const wasConnected = useRef(connected);
  const [retries, setRetries] = useState(0);
  useEffect(() => {
    if (connected && !wasConnected.current && failed) setRetries((count) => count + 1);
    wasConnected.current = connected;
  }, [connected, failed]);

  useEffect(() => {
    if (sessionId === undefined || file === undefined || key === null) return;
    const lease = bridge.screenshot({ sessionId, file, width, height });
    let shown = true;
    lease.url.then(
      (url) => shown && setLoaded({ key, url }),
      () => shown && setLoaded({ key, url: null }),
    );
    return () => {
      shown = false;
      lease.release();
    };
  }, [bridge, key, sessionId, file, width, height, retries]);

  if (key === null || loaded?.key !== key) return { url: null, failed: false };
  return { url: loaded.url, failed };
}
