import { Alert, Box, Button } from '@mui/material';
import { useMemo } from 'react';
import { useDeskhand, waitingElsewhere } from '../store';
import { focusNextWaiting } from './focus';

/**
 * A question, approval or agent's form of a session not on screen (another one, or none: "New") would
 * otherwise go unseen while that session waits: one alert per such session, with a button to open it.
 */
export function WaitingElsewhere() {
  const interactions = useDeskhand((state) => state.interactions);
  const sessions = useDeskhand((state) => state.sessions);
  const currentSessionId = useDeskhand((state) => state.currentSessionId);
  const forms = useDeskhand((state) => state.forms);
  const openSession = useDeskhand((state) => state.openSession);
  const waiting = useMemo(
    () => waitingElsewhere({ interactions, sessions, currentSessionId, forms }),
    [interactions, sessions, currentSessionId, forms],
  );
  if (waiting.length === 0) return null;

  const open = async (sessionId: string): Promise<void> => {
    await openSession(sessionId);
    // After React has shown the session's cards.
    requestAnimationFrame(focusNextWaiting);
  };

  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 1, px: 2, py: 1, borderBottom: 1, borderColor: 'divider' }}>
      {waiting.map((session) => {
        // An empty title too (the list shows the request there, which this alert does not have).
        const name = session.title || 'Another session';
        return (
          <Alert
            key={session.sessionId}
            severity="warning"
            variant="outlined"
            sx={{ overflowWrap: 'anywhere' }}
            action={
              // Named by what it opens: with two alerts, two buttons named "Open" would say the same. The name
              // starts with what the button shows, for speech input.
              <Button color="inherit" size="small" aria-label={`Open ${name}`} onClick={() => void open(session.sessionId)}>
                Open
              </Button>
            }
          >
            {name} is waiting for you
            {session.count > 1 ? ` (${session.count} questions or approvals)` : ''}
          </Alert>
        );
      })}
    </Box>
  );
}
