import { Box, Chip, CircularProgress, Typography } from '@mui/material';
import { currentSession, isSessionActive, useDeskhand, type DeskhandState } from '../store';
import { SESSION_STATUS_LABELS } from './labels';

function describeStatus(state: DeskhandState): { text: string; busy: boolean } {
  const session = currentSession(state);
  if (!session) return state.awaitingStart ? { text: 'Starting…', busy: true } : { text: 'Ready', busy: false };
  const label = SESSION_STATUS_LABELS[session.status];
  return { text: state.statusDetail ? `${label}: ${state.statusDetail}` : label, busy: isSessionActive(session.status) };
}

export function StatusLine() {
  const text = useDeskhand((state) => describeStatus(state).text);
  const busy = useDeskhand((state) => describeStatus(state).busy);
  const connection = useDeskhand((state) => state.connection);
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, minWidth: 0, flex: 1 }}>
      {connection !== 'connected' && (
        <Chip size="small" color="warning" label={connection === 'connecting' ? 'Connecting…' : 'Disconnected, retrying…'} />
      )}
      {busy && <CircularProgress size={16} aria-hidden />}
      <Typography role="status" aria-live="polite" noWrap title={text} sx={{ minWidth: 0 }}>
        {text}
      </Typography>
    </Box>
  );
}
