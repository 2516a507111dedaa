import AddIcon from '@mui/icons-material/Add';
import { Box, Button, List, Typography } from '@mui/material';
import { memo, useCallback, useState } from 'react';
import type { SessionView } from '../../../src-main/protocol';
import { useShallow } from 'zustand/react/shallow';
import { FOCUS_TARGETS, listedSessions, useDeskhand } from '../store';
import { DeleteSessionDialog } from './DeleteSessionDialog';
import { downloadText } from './download';
import { SessionListItem } from './SessionListItem';
import { SessionSearch } from './SessionSearch';

interface SessionListProps {
  onExport(session: SessionView): void;
  onDelete(session: SessionView): void;
}

/**
 * The sessions listed (all, or the search's results). Its own component: every step updates its session's
 * count, and that re-renders this list, not the header and search around it.
 */
const SessionList = memo(function SessionList({ onExport, onDelete }: SessionListProps) {
  const sessions = useDeskhand(useShallow(listedSessions));
  const query = useDeskhand((state) => state.sessionQuery);
  const currentSessionId = useDeskhand((state) => state.currentSessionId);
  const openSession = useDeskhand((state) => state.openSession);
  const onOpen = useCallback((sessionId: string) => void openSession(sessionId), [openSession]);
  return (
    <>
      {sessions.length === 0 && (
        <Typography variant="body2" color="text.secondary" sx={{ px: 2, py: 1 }}>
          {query ? `No session matches “${query}”.` : 'No sessions yet.'}
        </Typography>
      )}
      <List dense aria-label="Sessions" sx={{ overflowY: 'auto', flex: 1, minHeight: 0 }}>
        {sessions.map((session) => (
          <SessionListItem
            key={session.id}
            session={session}
            selected={session.id === currentSessionId}
            onOpen={onOpen}
            onExport={onExport}
            onDelete={onDelete}
          />
        ))}
      </List>
    </>
  );
});

export function SessionsSidebar() {
  const newSession = useDeskhand((state) => state.newSession);
  const deleteSession = useDeskhand((state) => state.deleteSession);
  const exportSession = useDeskhand((state) => state.exportSession);
  const notify = useDeskhand((state) => state.notify);
  const [deleting, setDeleting] = useState<SessionView | null>(null);

  const onExport = useCallback(
    (session: SessionView) => {
      void exportSession(session.id).then((exported) => {
        if (!exported) return;
        downloadText(exported.fileName, exported.json);
        notify(`Exported “${session.title || session.request}” as ${exported.fileName}.`);
      });
    },
    [exportSession, notify],
  );
  const onDelete = useCallback((session: SessionView) => setDeleting(session), []);

  const startNew = (): void => {
    newSession();
    // Straight to typing the new request.
    requestAnimationFrame(() => document.getElementById(FOCUS_TARGETS.request)?.focus());
  };

  return (
    <Box
      component="nav"
      aria-label="Past sessions"
      sx={{ width: 280, flexShrink: 0, borderRight: 1, borderColor: 'divider', display: 'flex', flexDirection: 'column', minHeight: 0 }}
    >
      <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', px: 2, pt: 1.5, pb: 1 }}>
        <Typography variant="h6" component="h2">
          Sessions
        </Typography>
        <Button size="small" startIcon={<AddIcon />} onClick={startNew}>
          New
        </Button>
      </Box>
      <Box sx={{ px: 2, pb: 1 }}>
        <SessionSearch />
      </Box>
      <SessionList onExport={onExport} onDelete={onDelete} />
      <DeleteSessionDialog
        session={deleting}
        onCancel={() => setDeleting(null)}
        onConfirm={(session) => {
          setDeleting(null);
          void deleteSession(session.id);
        }}
      />
    </Box>
  );
}
