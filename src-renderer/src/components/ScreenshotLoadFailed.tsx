import { Box, Button, Typography, type TypographyProps } from '@mui/material';
import { useLayoutEffect, useRef, useState } from 'react';
import type { ScreenshotUrl } from './useScreenshotUrl';

interface ScreenshotLoadFailedProps {
  /** What could not be loaded, in words. */
  message: string;
  screenshot: ScreenshotUrl;
  /** Where the keyboard goes on from when this goes (the picture came) while it had the focus. */
  focusAfter: () => HTMLElement | null;
  variant?: TypographyProps['variant'];
  centered?: boolean;
}

/**
 * Says a screenshot could not be loaded, with Try again: a load that failed is tried again by itself only
 * when the connection comes back, and a host that cannot serve it for a moment changes nothing the page
 * sees. The button stays focusable while it tries (a disabled button would drop the keyboard focus).
 * A try that fails again says so, politely, each time: the button only turning back to Try again is
 * silent to a screen reader.
 */
export function ScreenshotLoadFailed({ message, screenshot, focusAfter, variant = 'body1', centered = false }: ScreenshotLoadFailedProps) {
  const boxRef = useRef<HTMLDivElement>(null);
  const focusAfterRef = useRef(focusAfter);
  useLayoutEffect(() => {
    focusAfterRef.current = focusAfter;
  });
  useLayoutEffect(() => {
    const box = boxRef.current;
    // Runs while the button is still in the page; once it has gone, the focus would be on <body>.
    return () => {
      if (!box?.contains(document.activeElement)) return;
      queueMicrotask(() => {
        const target = focusAfterRef.current();
        const active = document.activeElement;
        if (target?.isConnected && (active === null || active === document.body)) target.focus();
      });
    };
  }, []);
  const { retrying, retry } = screenshot;
  // Counted while rendering (not in an effect) so that the words come in the render that ends the try.
  const [wasRetrying, setWasRetrying] = useState(retrying);
  const [failedAgain, setFailedAgain] = useState(0);
  if (retrying !== wasRetrying) {
    setWasRetrying(retrying);
    if (!retrying) setFailedAgain((count) => count + 1);
  }
  return (
    <Box
      ref={boxRef}
      sx={{ display: 'flex', flexDirection: 'column', alignItems: centered ? 'center' : 'flex-start', gap: 1, ...(centered ? { p: 3, textAlign: 'center' } : {}) }}
    >
      <Typography variant={variant} color="text.secondary">
        {message}
        {/* In the page from the start, as a live region must be; a new node each time, so the same words are said again. */}
        <span aria-live="polite" aria-atomic="true">
          {!retrying && failedAgain > 0 && <span key={failedAgain}> Tried again: it still could not be loaded.</span>}
        </span>
      </Typography>
      <Button size="small" variant="outlined" aria-disabled={retrying || undefined} onClick={() => !retrying && retry()}>
        {retrying ? 'Trying again…' : 'Try again'}
      </Button>
    </Box>
  );
}
