import { Box, Button, Typography } from '@mui/material';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useLayoutEffect, useRef, useState, type UIEvent } from 'react';
import { useDeskhand } from '../store';
import { StepItem } from './StepItem';

/** Within this many pixels of the bottom counts as "at the newest step". */
const BOTTOM_SLACK_PX = 48;

/** The live trajectory, virtualised so thousands of steps scroll smoothly; follows the newest step until the user scrolls up. */
export function TrajectoryList() {
  const steps = useDeskhand((state) => state.steps);
  const currentSessionId = useDeskhand((state) => state.currentSessionId);
  const scrollRef = useRef<HTMLDivElement>(null);
  const lastScrollTop = useRef(0);
  const followingRef = useRef(true);
  const [following, setFollowingState] = useState(true);

  const setFollowing = (value: boolean): void => {
    followingRef.current = value;
    setFollowingState(value);
  };

  const virtualizer = useVirtualizer({
    count: steps.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 160,
    overscan: 6,
    getItemKey: (index) => steps[index]?.id ?? index,
  });
  const totalSize = virtualizer.getTotalSize();

  // A different session starts at its newest step.
  useLayoutEffect(() => {
    followingRef.current = true;
    setFollowingState(true);
  }, [currentSessionId]);

  // Rows are measured after they render, so the bottom moves more than once per new step: follow it each time.
  useLayoutEffect(() => {
    const element = scrollRef.current;
    if (element && followingRef.current) element.scrollTop = element.scrollHeight;
  }, [steps.length, totalSize, currentSessionId]);

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

  return (
    <Box sx={{ position: 'relative', flex: 1, minHeight: 0, display: 'flex', flexDirection: 'column' }}>
      <Box ref={scrollRef} onScroll={onScroll} sx={{ flex: 1, minHeight: 0, overflowY: 'auto', py: 1 }}>
        <div role="list" aria-label="Trajectory" style={{ position: 'relative', width: '100%', height: totalSize }}>
          {virtualizer.getVirtualItems().map((item) => {
            const step = steps[item.index];
            if (!step) return null;
            return (
              <div
                key={item.key}
                ref={virtualizer.measureElement}
                data-index={item.index}
                role="listitem"
                aria-posinset={item.index + 1}
                aria-setsize={steps.length}
                style={{ position: 'absolute', top: 0, left: 0, width: '100%', transform: `translateY(${item.start}px)` }}
              >
                <StepItem step={step} />
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
