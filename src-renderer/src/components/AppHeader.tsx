import KeyboardIcon from '@mui/icons-material/Keyboard';
import MenuIcon from '@mui/icons-material/Menu';
import SettingsIcon from '@mui/icons-material/Settings';
import { Box, Button, IconButton, Tooltip, Typography } from '@mui/material';
import { useDeskhand, useUi } from '../store';
import { MOD_KEY } from './labels';
import { SESSIONS_PANEL_ID, useNarrowWindow } from './useNarrowWindow';

export function AppHeader() {
  const setBlackboardOpen = useUi((state) => state.setBlackboardOpen);
  const setSettingsOpen = useUi((state) => state.setSettingsOpen);
  const setShortcutsOpen = useUi((state) => state.setShortcutsOpen);
  const hasSession = useDeskhand((state) => state.currentSessionId !== null);
  const narrow = useNarrowWindow();
  const sessionsOpen = useUi((state) => state.sessionsOpen);
  const setSessionsOpen = useUi((state) => state.setSessionsOpen);
  return (
    <Box component="header" sx={{ display: 'flex', alignItems: 'center', gap: 2, px: 2, py: 0.5, borderBottom: 1, borderColor: 'divider', minHeight: 48 }}>
      {narrow && (
        <Tooltip title={`Sessions: past ones, New, search (${MOD_KEY}+K)`}>
          <IconButton edge="start" aria-label="Sessions" aria-controls={SESSIONS_PANEL_ID} aria-expanded={sessionsOpen} onClick={() => setSessionsOpen(true)}>
            <MenuIcon />
          </IconButton>
        </Tooltip>
      )}
      <Typography variant="h6" component="h1" sx={{ flexShrink: 0, flex: 1 }}>
        Deskhand
      </Typography>
      <Box sx={{ display: 'flex', gap: 0.5, alignItems: 'center', flexShrink: 0 }}>
        <Tooltip title="What the agents share: answers, requests, records, saved screenshots (B)">
          <span>
            <Button size="small" disabled={!hasSession} onClick={() => setBlackboardOpen(true)}>
              Blackboard
            </Button>
          </span>
        </Tooltip>
        <Tooltip title={`Settings (${MOD_KEY}+,)`}>
          <IconButton aria-label="Settings" onClick={() => setSettingsOpen(true)}>
            <SettingsIcon />
          </IconButton>
        </Tooltip>
        <Tooltip title="Keyboard shortcuts (?)">
          <IconButton aria-label="Keyboard shortcuts" onClick={() => setShortcutsOpen(true)}>
            <KeyboardIcon />
          </IconButton>
        </Tooltip>
      </Box>
    </Box>
  );
}
