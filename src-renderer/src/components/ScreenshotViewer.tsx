import { Box, Button, ButtonGroup, ToggleButton, ToggleButtonGroup, Typography } from '@mui/material';
import { useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { ScreenshotRef } from '../../../src-main/protocol';
import { ScreenshotLoadFailed } from './ScreenshotLoadFailed';
import { useScreenshotUrl } from './useScreenshotUrl';

type Version = 'clean' | 'annotated';
/** 'fit' scales to the panel; a number is a zoom factor of the stored pixels. */
type Zoom = 'fit' | number;

const ZOOM_STEPS = [0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4];

function nextZoom(current: Zoom, direction: 1 | -1, fitScale: number): number {
  const from = current === 'fit' ? fitScale : current;
  const candidates = direction === 1 ? ZOOM_STEPS.filter((z) => z > from + 1e-3) : ZOOM_STEPS.filter((z) => z < from - 1e-3).reverse();
  return candidates[0] ?? from;
}

interface ScreenshotViewerProps {
  clean: ScreenshotRef | null;
  annotated: ScreenshotRef | null;
  label: string;
}

/** A step's screenshot: the clean capture or the one with the action drawn on it; fit, 100% or zoomed. */
export function ScreenshotViewer({ clean, annotated, label }: ScreenshotViewerProps) {
  // The user's choice, kept from step to step (Previous/Next keep this viewer); a step without the
  // version asked for shows the other, marked as such. Not chosen yet: annotated, where a step has it
  // (not what the first step shown happened to have, which made the next steps' default depend on it).
  const [version, setVersion] = useState<Version>('annotated');
  const [zoom, setZoom] = useState<Zoom>('fit');
  const [fitScale, setFitScale] = useState(1);
  const shown = (version === 'annotated' ? annotated : clean) ?? clean ?? annotated;
  const frameRef = useRef<HTMLDivElement>(null);
  const loading = useScreenshotUrl(shown);
  const { url, failed } = loading;
  const width = shown?.width ?? 1;
  const height = shown?.height ?? 1;

  // "Fit" means this scale; keeping it known lets +/− zoom on from what is seen.
  useLayoutEffect(() => {
    const frame = frameRef.current;
    if (!frame) return;
    const measure = () => {
      const scale = Math.min(4, (frame.clientWidth - 8) / width, (frame.clientHeight - 8) / height);
      if (scale > 0) setFitScale(Math.min(1, scale));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(frame);
    return () => observer.disconnect();
  }, [width, height]);

  if (!shown) {
    return (
      <Box sx={{ p: 3, textAlign: 'center', bgcolor: 'action.hover', borderRadius: 1 }}>
        <Typography color="text.secondary">This step has no screenshot.</Typography>
      </Box>
    );
  }
  const zoomIn = () => setZoom(nextZoom(zoom, 1, fitScale));
  const zoomOut = () => setZoom(nextZoom(zoom, -1, fitScale));
  const percent = Math.round((zoom === 'fit' ? fitScale : zoom) * 100);

  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) return;
    const actions: Record<string, () => void> = {
      '+': zoomIn,
      '=': zoomIn,
      '-': zoomOut,
      '0': () => setZoom('fit'),
      '1': () => setZoom(1),
      a: () => annotated && clean && setVersion((v) => (v === 'annotated' ? 'clean' : 'annotated')),
    };
    const action = actions[event.key];
    if (action && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      action();
    }
  };

  return (
    <Box onKeyDown={onKeyDown} sx={{ display: 'flex', flexDirection: 'column', gap: 1, minHeight: 0, height: '100%' }}>
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', alignItems: 'center' }}>
        <ToggleButtonGroup
          size="small"
          exclusive
          value={shown === annotated && version === 'annotated' ? 'annotated' : 'clean'}
          onChange={(_event, value: Version | null) => value && setVersion(value)}
          aria-label="Screenshot version"
          // The version shown is marked as the zoom chosen beside it is: MUI's grey tint was hard to see.
          sx={{ '& .MuiToggleButton-root.Mui-selected': { bgcolor: 'primary.main', color: 'primary.contrastText', '&:hover': { bgcolor: 'primary.dark' } } }}
        >
          <ToggleButton value="clean" disabled={!clean} title="The screen as captured (A toggles)">
            Clean
          </ToggleButton>
          <ToggleButton value="annotated" disabled={!annotated} title="With the action drawn on it (A toggles)">
            Annotated
          </ToggleButton>
        </ToggleButtonGroup>
        <ButtonGroup size="small" aria-label="Zoom">
          <Button onClick={() => setZoom('fit')} variant={zoom === 'fit' ? 'contained' : 'outlined'} title="Fit to the panel (0)">
            Fit
          </Button>
          <Button onClick={() => setZoom(1)} variant={zoom === 1 ? 'contained' : 'outlined'} title="Actual pixels (1)">
            100%
          </Button>
          <Button onClick={zoomOut} aria-label="Zoom out" title="Zoom out (−)">
            −
          </Button>
          <Button onClick={zoomIn} aria-label="Zoom in" title="Zoom in (+)">
            +
          </Button>
        </ButtonGroup>
        <Typography variant="caption" color="text.secondary" aria-live="polite">
          {percent}% · {shown.width}×{shown.height}
        </Typography>
        {!annotated && (
          <Typography variant="caption" color="text.secondary">
            No annotated picture for this step
          </Typography>
        )}
      </Box>
      <Box
        tabIndex={0}
        role="region"
        aria-label={`${label}, scrollable`}
        sx={{
          flex: 1,
          minHeight: 240,
          overflow: 'auto',
          bgcolor: 'action.hover',
          borderRadius: 1,
          display: zoom === 'fit' ? 'grid' : 'block',
          placeItems: 'center',
          '&:focus-visible': { outline: 3, outlineColor: 'primary.main' },
        }}
        ref={frameRef}
      >
        {failed && (
          <ScreenshotLoadFailed message="The screenshot of this step could not be loaded." screenshot={loading} focusAfter={() => frameRef.current} centered />
        )}
        {url && (
          <img
            src={url}
            alt={`${label} (${shown === annotated ? 'annotated' : 'clean'})`}
            // Sized from the measured scale: a percentage max-height finds no height to resolve against in a grid row.
            width={Math.round(shown.width * (zoom === 'fit' ? fitScale : zoom))}
            height={Math.round(shown.height * (zoom === 'fit' ? fitScale : zoom))}
            style={{ display: 'block', maxWidth: 'none' }}
          />
        )}
      </Box>
    </Box>
  );
}
