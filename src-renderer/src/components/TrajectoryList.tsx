import { Box, Button, Typography } from '@mui/material';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type UIEvent } from 'react';
import { FOCUS_TARGETS, groupHeaders, useDeskhand, useUi } from '../store';
import { StepItem } from './StepItem';

/** Within this many pixels of the bottom counts as "at the newest step". */
const BOTTOM_SLACK_PX = 48;
const NO_REQUESTS: string[] = [];

/**
 * The live trajectory, virtualised so thousands of steps scroll smoothly; follows the newest step until
 * the user scrolls up. Keyboard: Tab reaches one step (roving focus), arrows / Page / Home / End move,
 * Enter opens the step's detail.
 */
export function TrajectoryList() {
  const steps = useDeskhand((state) => state.steps);
  const currentSessionId = useDeskhand((state) => state.currentSessionId);
  const roundRequests = useDeskhand((state) => (state.currentSessionId ? state.roundRequests[state.currentSessionId] : undefined) ?? NO_REQUESTS);
  const openStep = useUi((state) => state.openStep);
  const headers = useMemo(() => groupHeaders(steps, roundRequests), [steps, roundRequests]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const lastScrollTop = useRef(0);
  const followingRef = useRef(true);
  const [following, setFollowingState] = useState(true);
  const [activeIndex, setActiveIndex] = useState<number | null>(null);
  const focusWanted = useRef<number | null>(null);

  const setFollowing = (value: boolean): void => {
    followingRef.current = value;
    setFollowingState(value);
  };

  const virtualizer = useVirtualizer({
    count: steps.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 150,
    overscan: 6,
    getItemKey: (index) => steps[index]?.id ?? index,
  });
  const totalSize = virtualizer.getTotalSize();
  const items = virtualizer.getVirtualItems();

  // A different session starts at its newest step.
  useLayoutEffect(() => {
    followingRef.current = true;
    setFollowingState(true);
    setActiveIndex(null);
  }, [currentSessionId]);

  // Rows are measured after they render, so the bottom moves more than once per new step: follow it each time.
  useLayoutEffect(() => {
    const element = scrollRef.current;
    if (element && followingRef.current) element.scrollTop = element.scrollHeight;
  }, [steps.length, totalSize, currentSessionId]);

  // Focus follows the keyboard once the wanted row is rendered.
  useLayoutEffect(() => {
    const wanted = focusWanted.current;
    if (wanted === null) return;
    const row = scrollRef.current?.querySelector<HTMLElement>(`[data-index="${wanted}"]`);
    if (row) {
      focusWanted.current = null;
      row.focus({ preventScroll: true });
    }
  });

  const onScroll = (event: UIEvent<HTMLDivElement>): void => {
    const element = event.currentTarget;
    const atBottom = element.scrollHeight - element.scrollTop - element.clientHeight <= BOTTOM_SLACK_PX;
    // Only moving up means the user is reading back; growth below us must not stop the following.
    const movedUp = element.scrollTop < lastScrollTop.current - 1;
    lastScrollTop.current = element.scrollTop;
    if (atBottom && !followingRef.current) setFollowing(true);
    else if (movedUp && !atBottom && followingRef.current) setFollowing(false);
  };

  const jumpToNewest = (): void => {
    setFollowing(true);
    const element = scrollRef.current;
    if (element) element.scrollTop = element.scrollHeight;
  };

  // The one row Tab reaches: the active one when rendered, else the first one on screen.
  const rendered = items.map((item) => item.index);
  const firstVisible = items.find((item) => item.end > (scrollRef.current?.scrollTop ?? 0))?.index ?? rendered[0] ?? null;
  const tabStop = activeIndex !== null && rendered.includes(activeIndex) ? activeIndex : firstVisible;

  const moveTo = (index: number): void => {
    const target = Math.max(0, Math.min(steps.length - 1, index));
    setActiveIndex(target);
    if (target < steps.length - 1) setFollowing(false);
    focusWanted.current = target;
    virtualizer.scrollToIndex(target, { align: 'auto' });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>): void => {
    const rowIndex = Number((event.target as HTMLElement).dataset.index);
    if (Number.isNaN(rowIndex)) return;
    const page = Math.max(1, items.length - 4);
    const moves: Record<string, number> = {
      ArrowDown: rowIndex + 1,
      ArrowUp: rowIndex - 1,
      PageDown: rowIndex + page,
      PageUp: rowIndex - page,
      Home: 0,
      End: steps.length - 1,
    };
    const next = moves[event.key];
    if (next !== undefined) {
      event.preventDefault();
      moveTo(next);
      return;
    }
    if (event.key === 'Enter' || event.key === ' ') {
      const step = steps[rowIndex];
      if (step) {
        event.preventDefault();
        openStep(step.id);
      }
    }
  };

  const onOpen = useCallback((stepId: string) => openStep(stepId), [openStep]);

  return (
    <Box sx={{ position: 'relative', flex: 1, minHeight: 0, display: 'flex', flexDirection: 'column' }}>
      <Box ref={scrollRef} onScroll={onScroll} onKeyDown={onKeyDown} sx={{ flex: 1, minHeight: 0, overflowY: 'auto', py: 1 }}>
        <div id={FOCUS_TARGETS.trajectory} role="list" aria-label="Trajectory" style={{ position: 'relative', width: '100%', height: totalSize }}>
          {items.map((item) => {
            const step = steps[item.index];
            const stepHeaders = headers[item.index];
            if (!step || !stepHeaders) return null;
            return (
              <div
                key={item.key}
                ref={virtualizer.measureElement}
                data-index={item.index}
                role="listitem"
                aria-posinset={item.index + 1}
                aria-setsize={steps.length}
                tabIndex={item.index === tabStop ? 0 : -1}
                onFocus={() => setActiveIndex(item.index)}
                className="trajectory-row"
                style={{ position: 'absolute', top: 0, left: 0, width: '100%', transform: `translateY(${item.start}px)` }}
              >
                <StepItem step={step} headers={stepHeaders} onOpen={onOpen} />
              </div>
            );
          })}
        </div>
      </Box>
      {steps.length === 0 && (
        <Typography color="text.secondary" sx={{ position: 'absolute', inset: 0, display: 'grid', placeItems: 'center', pointerEvents: 'none' }}>
          {currentSessionId === null ? 'Type a request below to start.' : 'No steps yet.'}
        </Typography>
      )}
      {!following && steps.length > 0 && (
        <Button variant="contained" size="small" onClick={jumpToNewest} sx={{ position: 'absolute', bottom: 16, right: 24 }}>
          Jump to newest
        </Button>
      )}
    </Box>
  );
}
