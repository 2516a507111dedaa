import { Box, Typography } from '@mui/material';
import { useLayoutEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { pendingInteractions, sessionForms, useDeskhand } from '../store';
import { AgentFormCard, formTitle } from './AgentFormCard';
import { ConfirmCard } from './ConfirmCard';
import { moveFocusIfAnsweredGone } from './focus';
import { QuestionsCard } from './QuestionsCard';
import { readableColor } from './readableColor';
import { ViewErrorBoundary } from './ViewErrorBoundary';

/** What the agent asks of the user in the session on screen: questions and approvals first, then its forms. */
export function AgentPanel() {
  const interactions = useDeskhand(useShallow(pendingInteractions));
  const forms = useDeskhand(useShallow(sessionForms));
  useLayoutEffect(() => moveFocusIfAnsweredGone(interactions.map((interaction) => interaction.id)), [interactions]);
  if (interactions.length === 0 && forms.length === 0) return null;
  const firstConfirm = interactions.find((interaction) => interaction.kind === 'confirm');
  return (
    <Box
      component="aside"
      aria-label="Agent requests"
      sx={{
        // Below 600 px a panel beside the trajectory would leave it (and the request box) a sliver: it goes above them.
        width: { xs: 'auto', sm: 320, lg: 420 },
        maxHeight: { xs: '50%', sm: 'none' },
        order: { xs: -1, sm: 0 },
        flexShrink: 0,
        borderLeft: { xs: 0, sm: 1 },
        borderBottom: { xs: 1, sm: 0 },
        borderColor: 'divider',
        overflowY: 'auto',
        p: 2,
        display: 'flex',
        flexDirection: 'column',
        gap: 2,
        '& > *': { flexShrink: 0 },
      }}
    >
      {interactions.length > 0 && (
        <Typography variant="overline" component="h2" sx={{ lineHeight: 1.2, color: (theme) => readableColor(theme, theme.palette.warning.main, theme.palette.background.default) }}>
          Waiting for you
        </Typography>
      )}
      {interactions.map((interaction) =>
        interaction.kind === 'questions' ? (
          <ViewErrorBoundary key={interaction.id} area="the agent's questions">
            <QuestionsCard interaction={interaction} />
          </ViewErrorBoundary>
        ) : (
          <ViewErrorBoundary key={interaction.id} area="the action to approve">
            <ConfirmCard interaction={interaction} shortcuts={interaction === firstConfirm} />
          </ViewErrorBoundary>
        ),
      )}
      {forms.length > 0 && (
        <Typography variant="overline" component="h2" color="text.secondary" sx={{ lineHeight: 1.2 }}>
          Forms
        </Typography>
      )}
      {forms.map((form) => (
        // Each form alone: a model-written spec that breaks its renderer leaves the others, and the approvals, usable.
        <ViewErrorBoundary key={`${form.sessionId}/${form.formId}`} area={`the form “${formTitle(form)}”`} resetKey={form}>
          <AgentFormCard form={form} />
        </ViewErrorBoundary>
      ))}
    </Box>
  );
}
