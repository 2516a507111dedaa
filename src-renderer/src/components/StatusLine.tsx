import { Box, Chip, CircularProgress, Typography } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import type { SessionStatus } from '../../../src-main/protocol';
import { activeSession, currentSession, isSessionActive, useDeskhand, type ConnectionState, type DeskhandState } from '../store';
import { formatCost, formatCount, SESSION_STATUS_LABELS, totalTokens } from './labels';
import { plainText } from './plainText';
import { visuallyHidden } from './visuallyHidden';

const CONNECTION_LABELS: Record<Exclude<ConnectionState, 'connected'>, string> = {
  connecting: 'Connecting…',
  disconnected: 'Disconnected, retrying…',
  unreachable: 'Cannot reach Deskhand, retrying…',
  refused: 'Not connected',
};

function describeStatus(state: DeskhandState): { text: string; busy: boolean } {
  const session = currentSession(state);
  if (!session) {
    if (state.startTakesScreen) return { text: 'Starting…', busy: true };
    // "Ready" would be wrong while Send waits for a session elsewhere (after a reload, say), which Pause and Stop act on.
    const elsewhere = activeSession(state);
    if (elsewhere) return { text: `“${elsewhere.title || elsewhere.request}” is ${SESSION_STATUS_LABELS[elsewhere.status].toLowerCase()}`, busy: false };
    return { text: 'Ready', busy: false };
  }
  const label = SESSION_STATUS_LABELS[session.status];
  const busy = isSessionActive(session.status) && session.status !== 'paused' && session.status !== 'waiting';
  const detail = plainText(state.statusDetail);
  if (!detail) return { text: label, busy };
  return { text: saysStatusAlready(session.status, label, detail) ? upperFirst(detail) : `${label}: ${detail}`, busy };
}

/**
 * Whether the host's note on a live session already names its status ("Waiting for your approval: …",
 * "Paused by you", "Resumed: waiting for you"), so the label in front would only say it twice. An ended
 * session's note is its result, which keeps the label ("Failed: …") unless it starts with it as a word
 * ("Stopped by you", not "Stopped: Stopped by you").
 */
function saysStatusAlready(status: SessionStatus, label: string, detail: string): boolean {
  const lower = detail.toLowerCase();
  const name = label.toLowerCase();
  if (!isSessionActive(status)) return lower === name || lower.startsWith(`${name} `);
  return lower.startsWith(name) || lower.endsWith(name);
}

function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "Step 4 of 30" within the current round (the limit is per round). */
function describeProgress(state: DeskhandState): string {
  const session = currentSession(state);
  if (!session || state.steps.length === 0) return '';
  const { steps } = state;
  const round = steps[steps.length - 1]?.round ?? 0;
  // Rounds never go down along the steps: binary search for where the last one starts (runs on every update).
  let low = 0;
  let high = steps.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((steps[middle]?.round ?? 0) < round) low = middle + 1;
    else high = middle;
  }
  const inRound = steps.length - low;
  const roundText = session.roundCount > 1 ? `Round ${round + 1} · ` : '';
  return `${roundText}Step ${inRound}${session.maxSteps ? ` of ${session.maxSteps}` : ''}`;
}

function describeUsage(state: DeskhandState): string {
  const session = currentSession(state);
  if (!session) return '';
  const tokens = totalTokens(session.tokens);
  if (tokens === 0 && !session.costUsd) return '';
  const cost = session.costUsd !== null ? ` · ${formatCost(session.costUsd)}` : '';
  return `${formatCount(tokens)} tokens${cost}`;
}

/**
 * The link to the host, in a live region that is always there, so that a screen reader hears it drop
 * ("Disconnected, retrying…") and come back, which sighted users see as the chip going away.
 */
function ConnectionNotice() {
  const connection = useDeskhand((state) => state.connection);
  const wasDown = useRef(false);
  // Only a return after a drop is news; the first connection of a page load is not.
  const back = connection === 'connected' && wasDown.current;
  if (connection === 'disconnected' || connection === 'unreachable' || connection === 'refused') wasDown.current = true;
  return (
    <Box component="span" aria-live="polite" aria-atomic="true" data-testid="connection-state" sx={{ display: 'inline-flex', flexShrink: 0 }}>
      {connection !== 'connected' && (
        <Chip size="small" color={connection === 'refused' || connection === 'unreachable' ? 'error' : 'warning'} label={CONNECTION_LABELS[connection]} />
      )}
      {back && <Box component="span" sx={visuallyHidden}>Connected to Deskhand again</Box>}
    </Box>
  );
}

/** From how long the same status on, while the agent works, its time is shown ("for 12 s"). */
const ELAPSED_AFTER_MS = 5_000;

/**
 * How long the status in `text` has stood, once that is ELAPSED_AFTER_MS or more: a model answering
 * slowly, or a long command, otherwise looks the same as one that hangs. Outside the live region, so
 * that a screen reader is not told every second.
 */
function Elapsed({ text }: { text: string }) {
  const [since, setSince] = useState({ text, at: Date.now() });
  const [now, setNow] = useState(() => Date.now());
  if (since.text !== text) setSince({ text, at: Date.now() });
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);
  const ms = since.text === text ? now - since.at : 0;
  if (ms < ELAPSED_AFTER_MS) return null;
  const seconds = Math.floor(ms / 1_000);
  const shown = seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return (
    <Typography variant="body2" color="text.secondary" noWrap sx={{ flexShrink: 0 }} data-testid="status-elapsed">
      for {shown}
    </Typography>
  );
}

/** What the session on screen is doing, how far it is, and what it cost so far. */
export function StatusLine() {
  const text = useDeskhand((state) => describeStatus(state).text);
  const busy = useDeskhand((state) => describeStatus(state).busy);
  const progress = useDeskhand(describeProgress);
  const usage = useDeskhand(describeUsage);
  return (
    // Below 600 px the step count and the cost wrap under the status instead of squeezing it to nothing.
    <Box sx={{ display: 'flex', flexWrap: { xs: 'wrap', sm: 'nowrap' }, alignItems: 'center', columnGap: 1.5, minWidth: 0, flex: 1 }}>
      <ConnectionNotice />
      {/* Turning only (disableShrink): the arc's growing and shrinking is drawn on the main thread every
          frame, the whole run long; a turn is the compositor's alone. */}
      {busy && <CircularProgress size={16} disableShrink aria-hidden />}
      <Typography role="status" aria-live="polite" noWrap title={text} sx={{ minWidth: 0, flex: { xs: '1 1 calc(100% - 48px)', sm: '0 1 auto' }, fontWeight: 500 }}>
        {text}
      </Typography>
      {busy && <Elapsed text={text} />}
      {progress && (
        <Typography variant="body2" color="text.secondary" noWrap sx={{ flexShrink: 0, ml: { xs: 0, sm: 'auto' } }} data-testid="step-progress">
          {progress}
        </Typography>
      )}
      {usage && (
        <Typography variant="body2" color="text.secondary" noWrap sx={{ flexShrink: 0 }} data-testid="session-usage">
          {usage}
        </Typography>
      )}
    </Box>
  );
}
