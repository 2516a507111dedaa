import { Box, Button, Typography, type TypographyProps } from '@mui/material';
import { useLayoutEffect, useRef } from 'react';
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
  return (
    <Box
      ref={boxRef}
      sx={{ display: 'flex', flexDirection: 'column', alignItems: centered ? 'center' : 'flex-start', gap: 1, ...(centered ? { p: 3, textAlign: 'center' } : {}) }}
    >
      <Typography variant={variant} color="text.secondary">
        {message}
      </Typography>
      <Button size="small" variant="outlined" aria-disabled={retrying || undefined} onClick={() => !retrying && retry()}>
        {retrying ? 'Trying again…' : 'Try again'}
      </Button>
    </Box>
  );
}
