import CloseIcon from '@mui/icons-material/Close';
import { Alert, Box, Button, Drawer, IconButton, List, ListItem, ListItemText, Typography } from '@mui/material';
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { useDeskhand, useUi } from '../store';
import { recordText } from './blackboardText';
import { ScreenshotImage } from './ScreenshotImage';

/** Refreshing on every step of a fast run would flood the host; this often is plenty for people. */
const REFRESH_DELAY_MS = 600;

function Section({ title, count, children }: { title: string; count: number; children: ReactNode }) {
  return (
    <Box component="section" sx={{ mb: 3 }}>
      <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600, mb: 0.5 }}>
        {title} ({count})
      </Typography>
      {count === 0 ? (
        <Typography variant="body2" color="text.secondary">
          None yet.
        </Typography>
      ) : (
        children
      )}
    </Box>
  );
}

/**
 * What the agents share within the session (UFO's Blackboard): the user's answers to their questions,
 * the requests of each round, the trajectory records they keep, and screenshots they chose to save.
 */
export function BlackboardDrawer() {
  const open = useUi((state) => state.blackboardOpen);
  const setOpen = useUi((state) => state.setBlackboardOpen);
  const sessionId = useDeskhand((state) => state.currentSessionId);
  const blackboard = useDeskhand((state) => (state.blackboard?.sessionId === state.currentSessionId ? state.blackboard.view : null));
  // Only an open drawer follows the run: a closed one must not re-render on every step.
  const stepCount = useDeskhand((state) => (open ? state.steps.length : 0));
  const interactionCount = useDeskhand((state) => (open ? state.interactions.length : 0));
  const refreshBlackboard = useDeskhand((state) => state.refreshBlackboard);
  /** The last fetch was refused: said in place of a "Loading…" that would never end. */
  const [failed, setFailed] = useState(false);
  const refresh = useCallback(async (): Promise<void> => setFailed(!(await refreshBlackboard())), [refreshBlackboard]);

  // Fetched when opened, and again (debounced) as steps arrive or questions are answered.
  useEffect(() => {
    if (!open || sessionId === null) return;
    const timer = setTimeout(() => void refresh(), blackboard ? REFRESH_DELAY_MS : 0);
    return () => clearTimeout(timer);
    // `blackboard` only decides the first delay: refetching because it changed would loop, so it is no dependency.
  }, [open, sessionId, stepCount, interactionCount, refresh]);

  return (
    <Drawer anchor="right" open={open} onClose={() => setOpen(false)} slotProps={{ paper: { sx: { width: { xs: '100%', sm: 480 } }, role: 'dialog', 'aria-labelledby': 'blackboard-title' } }}>
      <Box sx={{ display: 'flex', alignItems: 'center', px: 2, py: 1.5, borderBottom: 1, borderColor: 'divider' }}>
        <Typography id="blackboard-title" variant="h6" component="h2" sx={{ flex: 1 }}>
          Blackboard
        </Typography>
        <IconButton aria-label="Close" onClick={() => setOpen(false)}>
          <CloseIcon />
        </IconButton>
      </Box>
      <Box sx={{ p: 2, overflowY: 'auto', overflowWrap: 'anywhere' }}>
        {sessionId === null ? (
          <Typography color="text.secondary">Open or start a session to see its blackboard.</Typography>
        ) : !blackboard && failed ? (
          <Alert
            severity="error"
            action={
              <Button color="inherit" size="small" onClick={() => void refresh()}>
                Try again
              </Button>
            }
          >
            The blackboard could not be loaded.
          </Alert>
        ) : !blackboard ? (
          <Typography color="text.secondary">Loading…</Typography>
        ) : (
          <>
            <Section title="Questions and answers" count={blackboard.questions.length}>
              <List dense disablePadding aria-label="Questions and answers">
                {blackboard.questions.map((qa, i) => (
                  <ListItem key={i} disableGutters>
                    <ListItemText primary={qa.question} secondary={qa.answer || '(not answered)'} />
                  </ListItem>
                ))}
              </List>
            </Section>
            <Section title="Requests" count={blackboard.requests.length}>
              <List dense disablePadding aria-label="Requests">
                {blackboard.requests.map((request, i) => (
                  <ListItem key={i} disableGutters>
                    <ListItemText primary={request} secondary={`Round ${i + 1}`} />
                  </ListItem>
                ))}
              </List>
            </Section>
            <Section title="Trajectory records" count={blackboard.trajectories.length}>
              <List dense disablePadding aria-label="Trajectory records">
                {blackboard.trajectories.map((record, i) => (
                  <ListItem key={i} disableGutters>
                    <Typography variant="body2" component="pre" sx={{ m: 0, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', fontFamily: 'monospace', fontSize: 12, p: 1, width: '100%', bgcolor: 'action.hover', borderRadius: 1 }}>
                      {recordText(record)}
                    </Typography>
                  </ListItem>
                ))}
              </List>
            </Section>
            <Section title="Saved screenshots" count={blackboard.screenshots.length}>
              <Box sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(200px, 1fr))', gap: 1.5 }}>
                {blackboard.screenshots.map(({ screenshot, reason }, i) => (
                  <Box component="figure" key={i} sx={{ m: 0 }}>
                    <ScreenshotImage
                      screenshot={screenshot}
                      alt={reason || `Saved screenshot ${i + 1}`}
                      loading="lazy"
                      style={{ display: 'block', width: '100%', height: 'auto', borderRadius: 4 }}
                    />
                    <Typography component="figcaption" variant="caption" color="text.secondary">
                      {reason}
                    </Typography>
                  </Box>
                ))}
              </Box>
            </Section>
          </>
        )}
      </Box>
    </Drawer>
  );
}
