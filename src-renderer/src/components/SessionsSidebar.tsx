import { Box, Button, List, ListItemButton, ListItemText, Typography } from '@mui/material';
import type { MouseEvent } from 'react';
import { useDeskhand } from '../store';
import { SESSION_STATUS_LABELS } from './labels';

export function SessionsSidebar() {
  const sessions = useDeskhand((state) => state.sessions);
  const currentSessionId = useDeskhand((state) => state.currentSessionId);
  const openSession = useDeskhand((state) => state.openSession);
  const newSession = useDeskhand((state) => state.newSession);

  return (
    <Box
      component="nav"
      aria-label="Past sessions"
      sx={{ width: 260, flexShrink: 0, borderRight: 1, borderColor: 'divider', display: 'flex', flexDirection: 'column' }}
    >
      <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', p: 2, pb: 1 }}>
        <Typography variant="h6" component="h2">
          Sessions
        </Typography>
        <Button size="small" onClick={newSession}>
          New
        </Button>
      </Box>
      {sessions.length === 0 && (
        <Typography variant="body2" color="text.secondary" sx={{ px: 2 }}>
          No sessions yet.
        </Typography>
      )}
      <List dense aria-label="Sessions" sx={{ overflowY: 'auto', flex: 1 }}>
        {sessions.map((session) => (
          // Links, not buttons: a session title ("Send the report…") or "Stopped" must never
          // compete with the app's own Send and Stop buttons for a name.
          <ListItemButton
            key={session.id}
            component="a"
            href={`#session-${encodeURIComponent(session.id)}`}
            selected={session.id === currentSessionId}
            aria-current={session.id === currentSessionId ? 'page' : undefined}
            onClick={(event: MouseEvent) => {
              event.preventDefault();
              void openSession(session.id);
            }}
          >
            <ListItemText
              primary={session.title || session.request}
              secondary={`${SESSION_STATUS_LABELS[session.status]} · ${session.stepCount} ${session.stepCount === 1 ? 'step' : 'steps'}`}
              slotProps={{ primary: { noWrap: true, title: session.request } }}
            />
          </ListItemButton>
        ))}
      </List>
    </Box>
  );
}
