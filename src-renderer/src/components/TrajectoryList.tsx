import { Button, Typography } from '@mui/material';
import { defaultRangeExtractor, useVirtualizer, type Range, type Virtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useEffect, useLayoutEffect, useRef, useState, type FocusEvent, type KeyboardEvent, type UIEvent } from 'react';
import { currentSession, FOCUS_TARGETS, isSessionActive, stepGroupHeaders, useDeskhand, useUi, type DeskhandState } from '../store';
import { StepItem, stepName } from './StepItem';
import { TRAJECTORY_CLASSES } from './trajectoryStyles';

/** Within this many pixels of the bottom counts as "at the newest step". */
const BOTTOM_SLACK_PX = 48;
/** A scroll this soon after a wheel, touch, key or pointer press on the list is the user's own. */
const USER_SCROLL_MS = 300;
const NO_REQUESTS: string[] = [];

/**
 * A row's size as the ResizeObserver reports it, after the browser's own layout; when a row mounts, the
 * size known so far, since reading it then would force a layout before the frame.
 */
function measuredByResizeObserver(row: Element, entry: ResizeObserverEntry | undefined, virtualizer: Virtualizer<HTMLDivElement, Element>): number {
  const box = entry?.borderBoxSize[0];
  if (box) return Math.round(box.blockSize);
  const index = virtualizer.indexFromElement(row);
  return virtualizer.itemSizeCache.get(virtualizer.options.getItemKey(index)) ?? virtualizer.options.estimateSize(index);
}

/** What an empty trajectory means, in place of the list. */
function emptyText(state: DeskhandState): string {
  const session = currentSession(state);
  if (state.currentSessionId === null || !session) return state.startTakesScreen ? 'Starting…' : 'Type a request below to start.';
  if (isSessionActive(session.status)) {
    // A shell session never looks at the screen.
    const first = session.mode === 'shell' ? 'once it has chosen a command' : 'once it has looked at the screen';
    return `The agent is at work: its first step shows here ${first}.`;
  }
  return 'This session ended without any step.';
}

/** Shown while the user reads back; memoised, as the list renders on every new step. */
const JumpToNewest = memo(function JumpToNewest({ onClick }: { onClick(): void }) {
  return (
    <Button variant="contained" size="small" onClick={onClick} sx={{ position: 'absolute', bottom: 16, right: 24 }}>
      Jump to newest
    </Button>
  );
});

/** The mounted list's way to put the focus on its newest step (false when it has none). */
let focusNewest: (() => boolean) | null = null;

/** Focuses the newest step of the trajectory on screen (scrolled to, rendered first); false when there is none. */
export function focusNewestStep(): boolean {
  return focusNewest?.() ?? false;
}

/**
 * The live trajectory, virtualised so thousands of steps scroll smoothly; follows the newest step until
 * the user scrolls up or puts the focus on an older step. Keyboard: Tab reaches one step (roving focus),
 * arrows / Page / Home / End move, Enter opens the step's detail; closing it focuses the step last viewed.
 */
export function TrajectoryList() {
  const steps = useDeskhand((state) => state.steps);
  const currentSessionId = useDeskhand((state) => state.currentSessionId);
  const empty = useDeskhand((state) => (state.steps.length === 0 ? emptyText(state) : ''));
  const roundRequests = useDeskhand((state) => (state.currentSessionId ? state.roundRequests[state.currentSessionId] : undefined) ?? NO_REQUESTS);
  const openStep = useUi((state) => state.openStep);
  const detailStepId = useUi((state) => state.detailStepId);
  const scrollRef = useRef<HTMLDivElement>(null);
  const lastScrollTop = useRef(0);
  const followingRef = useRef(true);
  const followFrame = useRef<number | null>(null);
  const listSize = useRef(0);
  const [following, setFollowingState] = useState(true);
  const [activeIndex, setActiveIndex] = useState<number | null>(null);
  // The row with the focus stays rendered wherever the list scrolls: unmounted, it would drop the focus to <body>.
  const [focusedIndex, setFocusedIndex] = useState<number | null>(null);
  const focusWanted = useRef<number | null>(null);
  const userInputAt = useRef(Number.NEGATIVE_INFINITY);
  const noteUserInput = useCallback((): void => {
    userInputAt.current = performance.now();
  }, []);

  const setFollowing = useCallback((value: boolean): void => {
    followingRef.current = value;
    setFollowingState(value);
  }, []);

  const scrollToNewest = useCallback((): void => {
    const element = scrollRef.current;
    if (!element || !followingRef.current) return;
    element.scrollTop = element.scrollHeight;
    // Our own scroll is the reference for "moved up": the user's next wheel is measured from here, even
    // when the browser reports both in one scroll event.
    lastScrollTop.current = element.scrollTop;
  }, []);

  /** Follows new rows in the next frame, where the browser lays them out anyway: scrolling at once would force that layout. */
  const followNewRows = useCallback((): void => {
    if (!followingRef.current || followFrame.current !== null) return;
    followFrame.current = requestAnimationFrame(() => {
      followFrame.current = null;
      scrollToNewest();
    });
  }, [scrollToNewest]);
  useEffect(
    () => () => {
      if (followFrame.current !== null) cancelAnimationFrame(followFrame.current);
    },
    [],
  );

  // Rows measured (after the frame's layout) move the bottom without a render: follow it in the same frame.
  // A scroll alone leaves the size as it was.
  const followMeasuredRows = useCallback(
    (instance: Virtualizer<HTMLDivElement, Element>): void => {
      const size = instance.getTotalSize();
      if (size === listSize.current) return;
      listSize.current = size;
      scrollToNewest();
    },
    [scrollToNewest],
  );

  const getItemKey = useCallback((index: number) => steps[index]?.id ?? index, [steps]);
  const rangeExtractor = useCallback(
    (range: Range): number[] => {
      const indexes = defaultRangeExtractor(range);
      if (focusedIndex === null || focusedIndex >= range.count || indexes.includes(focusedIndex)) return indexes;
      return [...indexes, focusedIndex].sort((a, b) => a - b);
    },
    [focusedIndex],
  );
  const virtualizer = useVirtualizer({
    count: steps.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 150,
    overscan: 6,
    getItemKey,
    rangeExtractor,
    measureElement: measuredByResizeObserver,
    // Measured sizes and positions go straight to the DOM, in the frame that measured them, without a render.
    directDomUpdates: true,
    directDomUpdatesMode: 'position',
    onChange: followMeasuredRows,
  });
  const items = virtualizer.getVirtualItems();

  // A different session starts at its newest step.
  useLayoutEffect(() => {
    followingRef.current = true;
    setFollowingState(true);
    setActiveIndex(null);
    setFocusedIndex(null);
  }, [currentSessionId]);

  useLayoutEffect(() => followNewRows(), [followNewRows, steps.length, currentSessionId]);

  /** Focuses the row `moveTo` asked for, once it is rendered. */
  const focusWantedRow = (): void => {
    const wanted = focusWanted.current;
    if (wanted === null) return;
    const row = scrollRef.current?.querySelector<HTMLElement>(`[data-index="${wanted}"]`);
    if (row) {
      focusWanted.current = null;
      row.focus({ preventScroll: true });
    }
  };
  // Focus follows the keyboard once the wanted row is rendered.
  useLayoutEffect(focusWantedRow);

  const onScroll = (event: UIEvent<HTMLDivElement>): void => {
    const element = event.currentTarget;
    const atBottom = element.scrollHeight - element.scrollTop - element.clientHeight <= BOTTOM_SLACK_PX;
    // Only moving up means the user is reading back; growth below us must not stop the following.
    const movedUp = element.scrollTop < lastScrollTop.current - 1;
    lastScrollTop.current = element.scrollTop;
    // New rows came in and the follow to them is due this frame: the list moved, not the user, unless
    // the user is scrolling right now (steps can stream in faster than frames).
    if (followFrame.current !== null && performance.now() - userInputAt.current > USER_SCROLL_MS) return;
    if (atBottom && !followingRef.current) setFollowing(true);
    else if (movedUp && !atBottom && followingRef.current) setFollowing(false);
  };

  const jumpToNewest = useCallback((): void => {
    setFollowing(true);
    scrollToNewest();
  }, [setFollowing, scrollToNewest]);

  // The one row Tab reaches: the active one when rendered, else the first one on screen.
  const rendered = items.map((item) => item.index);
  const firstVisible = items.find((item) => item.end > (virtualizer.scrollOffset ?? 0))?.index ?? rendered[0] ?? null;
  const tabStop = activeIndex !== null && rendered.includes(activeIndex) ? activeIndex : firstVisible;

  const moveTo = (index: number): void => {
    const target = Math.max(0, Math.min(steps.length - 1, index));
    setActiveIndex(target);
    if (target < steps.length - 1) setFollowing(false);
    focusWanted.current = target;
    virtualizer.scrollToIndex(target, { align: 'auto' });
  };

  // Closing the step detail focuses the step last viewed there (Alt+←/→ may have moved on from the one
  // opened, which may have scrolled away meanwhile). A passive effect: in the layout phase the closing
  // dialog's focus trap still pulls the focus back.
  const viewedStepId = useRef<string | null>(null);
  useEffect(() => {
    if (detailStepId !== null) {
      viewedStepId.current = detailStepId;
      return;
    }
    const viewed = viewedStepId.current;
    viewedStepId.current = null;
    if (viewed === null) return;
    const index = steps.findIndex((step) => step.id === viewed);
    if (index === -1) {
      // The step went with its session (deleted elsewhere): the keyboard, which was in the dialog, goes on from the request box.
      document.getElementById(FOCUS_TARGETS.request)?.focus();
      return;
    }
    moveTo(index);
    focusWantedRow();
  }, [detailStepId]); // only the dialog's closing, not every new step

  // With this render's steps (and `moveTo`), for a session just opened. A layout effect: the opener's
  // step runs in a passive effect of the same commit, which may come before this component's own.
  useLayoutEffect(() => {
    focusNewest = () => {
      if (steps.length === 0) return false;
      moveTo(steps.length - 1);
      focusWantedRow();
      return true;
    };
    return () => {
      focusNewest = null;
    };
  });

  /** A row other than the newest has the focus: following would scroll it away. */
  const onRowFocus = (index: number): void => {
    setActiveIndex(index);
    setFocusedIndex(index);
    if (index < steps.length - 1) setFollowing(false);
  };
  const onRowBlur = (event: FocusEvent<HTMLDivElement>): void => {
    if (!event.currentTarget.contains(event.relatedTarget)) setFocusedIndex(null);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>): void => {
    noteUserInput();
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
    <div className={TRAJECTORY_CLASSES.frame}>
      <div
        ref={scrollRef}
        onScroll={onScroll}
        onKeyDown={onKeyDown}
        onWheel={noteUserInput}
        onPointerDown={noteUserInput}
        onTouchMove={noteUserInput}
        className={TRAJECTORY_CLASSES.scroller}
      >
        <div ref={virtualizer.containerRef} id={FOCUS_TARGETS.trajectory} role="list" aria-label="Trajectory" className={TRAJECTORY_CLASSES.list}>
          {items.map((item) => {
            const step = steps[item.index];
            if (!step) return null;
            return (
              <div
                key={item.key}
                ref={virtualizer.measureElement}
                data-index={item.index}
                role="listitem"
                aria-label={stepName(step)}
                aria-posinset={item.index + 1}
                aria-setsize={steps.length}
                tabIndex={item.index === tabStop ? 0 : -1}
                onFocus={() => onRowFocus(item.index)}
                onBlur={onRowBlur}
                className={TRAJECTORY_CLASSES.row}
              >
                <StepItem step={step} headers={stepGroupHeaders(steps, roundRequests, item.index)} onOpen={onOpen} />
              </div>
            );
          })}
        </div>
      </div>
      {empty && (
        <Typography color="text.secondary" sx={{ position: 'absolute', inset: 0, display: 'grid', placeItems: 'center', textAlign: 'center', px: 2, pointerEvents: 'none' }}>
          {empty}
        </Typography>
      )}
      {!following && steps.length > 0 && <JumpToNewest onClick={jumpToNewest} />}
    </div>
  );
}
