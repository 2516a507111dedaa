import { Box, CssBaseline, GlobalStyles, ThemeProvider } from '@mui/material';
import { AgentPanel } from './AgentPanel';
import { AppHeader } from './AppHeader';
import { ConnectionAlert } from './ConnectionAlert';
import { DatabaseRepairNotice } from './DatabaseRepairNotice';
import { PausedNotice } from './PausedNotice';
import { useDraftCleanup } from './drafts';
import { BlackboardDrawer } from './BlackboardDrawer';
import { ErrorSnackbar } from './ErrorSnackbar';
import { RequestBox } from './RequestBox';
import { SessionsSidebar } from './SessionsSidebar';
import { SettingsDialog } from './SettingsDialog';
import { StatusBar } from './StatusBar';
import { ShortcutsDialog } from './ShortcutsDialog';
import { StepDetailDialog } from './StepDetailDialog';
import { trajectoryStyles } from './trajectoryStyles';
import { TrajectoryList } from './TrajectoryList';
import { useAttention } from './useAttention';
import { useGlobalShortcuts } from './useGlobalShortcuts';
import { useSystemTheme } from './useSystemTheme';
import { ViewErrorBoundary } from './ViewErrorBoundary';
import { WaitingElsewhere } from './WaitingElsewhere';

export function App() {
  const theme = useSystemTheme();
  useGlobalShortcuts();
  useAttention();
  useDraftCleanup();
  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      <GlobalStyles
        styles={{
          // A focus ring people can see wherever the keyboard is, in both themes.
          // MUI's buttons (ButtonBase: buttons, icon buttons, list items, tabs, menu items) set `outline: 0`
          // in a rule as specific as this one, and won: named as well, so that they get the ring too. Those
          // that fill their row are ringed inside it, where a panel's edge cannot cut the ring off.
          ':focus-visible, .MuiButtonBase-root:focus-visible': { outline: `3px solid ${theme.palette.primary.main}`, outlineOffset: 2 },
          '.MuiListItemButton-root:focus-visible, .MuiMenuItem-root:focus-visible, .MuiTab-root:focus-visible': { outlineOffset: -3 },
          // Dialogs and drawers take the focus themselves when they open: no ring around the whole panel.
          '.MuiDialog-paper:focus-visible, .MuiDrawer-paper:focus-visible, .MuiMenu-list:focus-visible': { outline: 'none' },
        }}
      />
      <GlobalStyles styles={trajectoryStyles} />
      <Box sx={{ display: 'flex', height: '100vh', overflow: 'hidden' }}>
        <ViewErrorBoundary area="the sessions">
          <SessionsSidebar />
        </ViewErrorBoundary>
        <Box component="main" sx={{ flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column' }}>
          <AppHeader />
          <ConnectionAlert />
          <DatabaseRepairNotice />
          <WaitingElsewhere />
          <StatusBar />
          <PausedNotice />
          <Box sx={{ flex: 1, minHeight: 0, display: 'flex', flexDirection: { xs: 'column', sm: 'row' } }}>
            <Box sx={{ flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column' }}>
              <ViewErrorBoundary area="the trajectory">
                <TrajectoryList />
              </ViewErrorBoundary>
              <Box sx={{ borderTop: 1, borderColor: 'divider' }}>
                <ViewErrorBoundary area="the request box">
                  <RequestBox />
                </ViewErrorBoundary>
              </Box>
            </Box>
            <AgentPanel />
          </Box>
        </Box>
      </Box>
      <StepDetailDialog />
      <BlackboardDrawer />
      <SettingsDialog />
      <ShortcutsDialog />
      <ErrorSnackbar />
    </ThemeProvider>
  );
}
