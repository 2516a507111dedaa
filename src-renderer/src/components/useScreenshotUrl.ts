import { useEffect, useState } from 'react';
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
  // A load that failed (the host was out of reach, say) is tried again once the connection comes back.
  const connection = useDeskhand((state) => state.connection);
  const retryWhen = failed ? connection : null;

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
  }, [bridge, key, sessionId, file, width, height, retryWhen]);

  if (key === null || loaded?.key !== key) return { url: null, failed: false };
  return { url: loaded.url, failed };
}
