import { Box, CssBaseline, ThemeProvider, Typography } from '@mui/material';
import { ErrorSnackbar } from './ErrorSnackbar';
import { RequestBox } from './RequestBox';
import { SessionsSidebar } from './SessionsSidebar';
import { StatusLine } from './StatusLine';
import { StopButton } from './StopButton';
import { TrajectoryList } from './TrajectoryList';
import { useSystemTheme } from './useSystemTheme';

export function App() {
  const theme = useSystemTheme();
  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      <Box sx={{ display: 'flex', height: '100vh', overflow: 'hidden' }}>
        <SessionsSidebar />
        <Box component="main" sx={{ flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column' }}>
          <Box
            component="header"
            sx={{ display: 'flex', alignItems: 'center', gap: 2, px: 2, py: 1, borderBottom: 1, borderColor: 'divider' }}
          >
            <Typography variant="h6" component="h1" sx={{ flexShrink: 0 }}>
              Deskhand
            </Typography>
            <StatusLine />
            <StopButton />
          </Box>
          <TrajectoryList />
          <Box sx={{ borderTop: 1, borderColor: 'divider' }}>
            <RequestBox />
          </Box>
        </Box>
      </Box>
      <ErrorSnackbar />
    </ThemeProvider>
  );
}
