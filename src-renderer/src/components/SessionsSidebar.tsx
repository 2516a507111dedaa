import AddIcon from '@mui/icons-material/Add';
import { Box, Button, Drawer, List, Typography } from '@mui/material';
import { memo, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { DamagedSessionView, SessionView } from '../../../src-main/protocol';
import { useShallow } from 'zustand/react/shallow';
import { damagedSessionName, FOCUS_TARGETS, listedSessions, sessionListEntries, useDeskhand, useUi } from '../store';
import { DamagedSessionItem } from './DamagedSessionItem';
import { DeleteSessionDialog } from './DeleteSessionDialog';
import { downloadText } from './download';
import { focusWaitingCard, watchUserInput } from './focus';
import { RenameSessionDialog } from './RenameSessionDialog';
import { SESSION_ACTIONS_ATTRIBUTE, SessionListItem } from './SessionListItem';
import { SessionSearch } from './SessionSearch';
import { focusNewestStep } from './TrajectoryList';
import { SESSIONS_PANEL_ID, useNarrowWindow } from './useNarrowWindow';
import { useAfterCommit } from './useAfterCommit';
import { visuallyHidden } from './visuallyHidden';

interface SessionListProps {
  onRename(session: SessionView): void;
  onExport(session: SessionView): void;
  onDelete(session: SessionView | DamagedSessionView): void;
}

/** What a search found, for screen readers (they do not see the list shrink); empty when not searching. */
function searchSummary(query: string, count: number): string {
  if (!query) return '';
  if (count === 0) return `No session matches “${query}”.`;
  return `${count} ${count === 1 ? 'session matches' : 'sessions match'} “${query}”.`;
}

/**
 * Where a session opened from the list takes the focus (a keyboard user would otherwise Tab through the
 * whole list and header to reach it): what it waits for (a question, an approval, an agent's form), else
 * its newest step (the list shows the newest; the trajectory's keys work from there, and the request box
 * is a Tab away), else the request box (a session without steps).
 */
function focusOpenedSession(): void {
  if (focusWaitingCard() || focusNewestStep()) return;
  document.getElementById(FOCUS_TARGETS.request)?.focus();
}

/**
 * The sessions listed (all, or the search's results). Its own component: every step updates its session's
 * count, and that re-renders this list, not the header and search around it.
 */
const SessionList = memo(function SessionList({ onRename, onExport, onDelete }: SessionListProps) {
  const sessions = useDeskhand(useShallow(listedSessions));
  const damaged = useDeskhand((state) => state.damagedSessions);
  const notify = useDeskhand((state) => state.notify);
  const query = useDeskhand((state) => state.sessionQuery);
  const currentSessionId = useDeskhand((state) => state.currentSessionId);
  const openSession = useDeskhand((state) => state.openSession);
  const setSessionsOpen = useUi((state) => state.setSessionsOpen);
  /** The session whose `session.open` is on its way: a big one takes a moment, and the click must show. */
  const [opening, setOpening] = useState<string | null>(null);
  const afterCommit = useAfterCommit();
  /** The session on screen as of the last commit (a layout effect: set before `afterCommit`'s steps run). */
  const shownSessionId = useRef(currentSessionId);
  useLayoutEffect(() => {
    shownSessionId.current = currentSessionId;
  });
  const onOpen = useCallback(
    (sessionId: string) => {
      // In a narrow window the panel covers the session: it goes once one is chosen.
      setSessionsOpen(false);
      setOpening(sessionId);
      // Opened (by Enter or a click; Tab through the list opens nothing), the session takes the focus,
      // unless the user went on to something else while it loaded (a key or a click since), or it failed.
      const pressedSince = watchUserInput();
      void openSession(sessionId).finally(() => {
        setOpening((current) => (current === sessionId ? null : current));
        const movedOn = pressedSince();
        if (movedOn) return;
        afterCommit(() => {
          if (shownSessionId.current === sessionId) focusOpenedSession();
        });
      });
    },
    [openSession, setSessionsOpen, afterCommit],
  );
  const onOpenDamaged = useCallback(
    (entry: DamagedSessionView) =>
      notify(`“${damagedSessionName(entry)}” is damaged and cannot be opened (${entry.problem}). Its menu can delete it.`, 'warning'),
    [notify],
  );
  const entries = sessionListEntries(sessions, damaged);
  return (
    <>
      {/* A live region, not role="status": that role is the status bar's, which people (and tests) look for. */}
      <Box aria-live="polite" aria-atomic="true" data-testid="session-search-summary" sx={visuallyHidden}>
        {searchSummary(query, entries.length)}
      </Box>
      {entries.length === 0 && (
        <Typography variant="body2" color="text.secondary" sx={{ px: 2, py: 1 }}>
          {query ? `No session matches “${query}”.` : 'No sessions yet.'}
        </Typography>
      )}
      <List dense aria-label="Sessions" sx={{ overflowY: 'auto', flex: 1, minHeight: 0 }}>
        {entries.map((entry) =>
          entry.kind === 'damaged' ? (
            <DamagedSessionItem key={entry.damaged.id} damaged={entry.damaged} onOpen={onOpenDamaged} onDelete={onDelete} />
          ) : (
            <SessionListItem
              key={entry.session.id}
              session={entry.session}
              selected={entry.session.id === currentSessionId}
              opening={entry.session.id === opening}
              onOpen={onOpen}
              onRename={onRename}
              onExport={onExport}
              onDelete={onDelete}
            />
          ),
        )}
      </List>
    </>
  );
});

function sessionLinks(): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>(`#${SESSIONS_PANEL_ID} [data-session-id]`)];
}

/** Focuses the session listed at `index` (or the last one, or the search), unless the user put the focus somewhere already. */
function focusSessionAt(index: number): void {
  const active = document.activeElement;
  if (active !== null && active !== document.body) return;
  const links = sessionLinks();
  (links[Math.min(Math.max(index, 0), links.length - 1)] ?? document.getElementById(FOCUS_TARGETS.sessionSearch))?.focus();
}

export function SessionsSidebar() {
  const newSession = useDeskhand((state) => state.newSession);
  const deleteSession = useDeskhand((state) => state.deleteSession);
  const exportSession = useDeskhand((state) => state.exportSession);
  const notify = useDeskhand((state) => state.notify);
  const renameSession = useDeskhand((state) => state.renameSession);
  const afterCommit = useAfterCommit();
  /** The session being renamed (its title when the dialog opened); the dialog shows it as it is now. */
  const [renaming, setRenaming] = useState<{ id: string; title: string } | null>(null);
  const renamingNow = useDeskhand((state) => (renaming === null ? null : (state.sessions.find((session) => session.id === renaming.id) ?? null)));
  const onRename = useCallback((session: SessionView) => setRenaming({ id: session.id, title: session.title || session.request }), []);
  useEffect(() => {
    if (renaming === null || renamingNow !== null) return;
    // Deleted meanwhile (in another window, say): the dialog closed with it, and says why.
    setRenaming(null);
    notify(`“${renaming.title}” was deleted meanwhile, so it was not renamed.`, 'warning');
    afterCommit(() => focusSessionAt(0));
  }, [renaming, renamingNow, notify, afterCommit]);
  const [deleting, setDeleting] = useState<SessionView | DamagedSessionView | null>(null);
  // As it is now, not as it was when the menu opened: a running session's steps go on adding up (and
  // one deleted in another window meanwhile closes the question).
  const deletingNow = useDeskhand((state) =>
    deleting === null || 'problem' in deleting ? deleting : (state.sessions.find((session) => session.id === deleting.id) ?? null),
  );
  const narrow = useNarrowWindow();
  const panelOpen = useUi((state) => state.sessionsOpen);
  const setSessionsOpen = useUi((state) => state.setSessionsOpen);

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
  const onDelete = useCallback((session: SessionView | DamagedSessionView) => setDeleting(session), []);

  const startNew = (): void => {
    setSessionsOpen(false);
    newSession();
    // Straight to typing the new request.
    requestAnimationFrame(() => document.getElementById(FOCUS_TARGETS.request)?.focus());
  };

  const sidebar = (
    <Box
      component="nav"
      id={SESSIONS_PANEL_ID}
      aria-label="Past sessions"
      sx={{ width: 280, maxWidth: '85vw', flexShrink: 0, borderRight: 1, borderColor: 'divider', display: 'flex', flexDirection: 'column', minHeight: 0, height: narrow ? '100%' : undefined }}
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
      <SessionList onRename={onRename} onExport={onExport} onDelete={onDelete} />
      <RenameSessionDialog
        session={renamingNow}
        onRename={(session, title) => renameSession(session.id, title)}
        onClose={() => {
          const sessionId = renaming?.id ?? null;
          setRenaming(null);
          // Back where the user was: the session's actions button (its row stays where it was).
          afterCommit(() => {
            if (sessionId !== null) document.querySelector<HTMLElement>(`#${SESSIONS_PANEL_ID} [${SESSION_ACTIONS_ATTRIBUTE}="${CSS.escape(sessionId)}"]`)?.focus();
          });
        }}
      />
      <DeleteSessionDialog
        session={deletingNow}
        onCancel={() => setDeleting(null)}
        onConfirm={(session) => {
          setDeleting(null);
          const at = sessionLinks().findIndex((link) => link.dataset.sessionId === session.id);
          void deleteSession(session.id).then((deleted) => {
            // Its row (which had the focus) is gone: the keyboard goes on from the session that took its place.
            if (deleted) afterCommit(() => focusSessionAt(at));
          });
        }}
      />
    </Box>
  );
  if (!narrow) return sidebar;
  // Kept mounted: a search typed there stays when the panel closes and opens again.
  return (
    // The panel is a dialog here (MUI's Drawer makes its paper one): named like the button that opens it.
    <Drawer open={panelOpen} onClose={() => setSessionsOpen(false)} keepMounted slotProps={{ paper: { 'aria-label': 'Sessions' } }}>
      {sidebar}
    </Drawer>
  );
}
