import type { UISchemaElement } from '@jsonforms/core';
import { JsonForms } from '@jsonforms/react';
import { Alert, AlertTitle, Box, Card, CardContent, Chip, Typography } from '@mui/material';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { FormView } from '../../../src-main/protocol';
import { AgentFormContext, type AgentFormActions } from '../forms/AgentFormContext';
import { AgentFormData } from '../forms/form-data';
import { checkFormSpec } from '../../../src-main/protocol/form-spec';
import { formCells, formRenderers } from '../forms/renderers';
import { createFormsAjv } from '../forms/safe-ajv';
import { maskSecretFields } from '../forms/secret-fields';
import { useSettledInput } from '../forms/useSettledInput';
import { useDeskhand } from '../store';
import { OPEN_FORM_ATTRIBUTE } from './focus';

/** Typing sends one event per pause, not per key. */
export const FORM_VALUE_DEBOUNCE_MS = 300;

export function formTitle(form: FormView): string {
  const title = form.schema.title;
  return typeof title === 'string' && title.trim() ? title : `A form from ${form.agent}`;
}

/**
 * An agent's interactive form (blue-style CREATE_FORM / UPDATE_FORM / CLOSE_FORM), rendered with the
 * material renderers plus Button and Markdown. Value changes go back debounced; Button actions at once
 * (after any pending values). A closed form stays, greyed and marked "Closed". An invalid spec shows
 * why in place of the form.
 */
export function AgentFormCard({ form }: { form: FormView }) {
  const sendFormEvent = useDeskhand((state) => state.sendFormEvent);
  const check = useMemo(() => checkFormSpec(form), [form]);
  const uischema = useMemo(() => (check.ok ? maskSecretFields(check.schema, check.uischema) : undefined), [check]);
  const ajv = useMemo(createFormsAjv, []);
  const closed = form.state === 'closed';
  const titleId = `form-${form.sessionId}-${form.formId}`;
  const { sessionId, formId } = form;
  const key = useMemo(() => ({ sessionId, formId }), [sessionId, formId]);

  const [data, setData] = useState<Record<string, unknown>>(form.data);
  /** Problems show once the user has changed something, not on a form they have not touched yet. */
  const [touched, setTouched] = useState(false);
  const [formData] = useState(() => new AgentFormData(form.data));
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const { onInputCapture, changed, settle } = useSettledInput();

  const flush = useCallback(() => {
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = null;
    for (const change of formData.edits.takePending()) {
      void sendFormEvent(key, change.path, change.value, null).then(() => formData.edits.settled(change));
    }
  }, [key, formData, sendFormEvent]);

  // The agent changed the data (UPDATE_FORM), or the host echoes an edit: that data, with the edits it
  // does not show yet on top, is what the form shows. An echo of what is already shown changes nothing.
  useEffect(() => {
    const shown = formData.fromHost(form.data);
    if (shown) setData(shown);
  }, [form.data, formData]);

  // A closed form takes no more edits; unsent ones are moot. Leaving (unmount) sends what is pending.
  useEffect(() => {
    if (closed) {
      if (timer.current !== null) clearTimeout(timer.current);
      formData.edits.clear();
    }
  }, [closed, formData]);
  useEffect(() => flush, [flush]);

  const onChange = (next: Record<string, unknown>): void => {
    setData(next);
    const { changes, show } = formData.fromForm(next, !closed);
    if (show) setData(show);
    // The host echoing data back is no keystroke arriving: only the user's own edits settle the input.
    if (changes.length === 0) return;
    changed();
    setTouched(true);
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = setTimeout(flush, FORM_VALUE_DEBOUNCE_MS);
  };

  const actions = useMemo<AgentFormActions>(
    () => ({
      closed,
      onAction(action) {
        if (closed) return;
        // What was typed just before the press goes first (JSONForms holds keystrokes back briefly).
        void settle().then(() => {
          flush();
          void sendFormEvent(key, '', null, action);
        });
      },
    }),
    [closed, flush, settle, key, sendFormEvent],
  );

  return (
    <Card
      variant="outlined"
      component="section"
      aria-labelledby={titleId}
      aria-disabled={closed || undefined}
      data-form-id={form.formId}
      // An open form is where the keyboard goes on to once the questions and approvals are done with (focusNextWaiting).
      {...(closed ? {} : { [OPEN_FORM_ATTRIBUTE]: '', tabIndex: -1 })}
      sx={{ opacity: closed ? 0.6 : 1, filter: closed ? 'grayscale(1)' : 'none', bgcolor: closed ? 'action.hover' : undefined }}
    >
      <CardContent onInputCapture={onInputCapture}>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1 }}>
          <Typography id={titleId} variant="h6" component="h3" sx={{ flex: 1, minWidth: 0 }}>
            {formTitle(form)}
          </Typography>
          {closed && <Chip size="small" label="Closed" />}
        </Box>
        {check.ok ? (
          <AgentFormContext.Provider value={actions}>
            <JsonForms
              schema={check.schema}
              uischema={uischema as UISchemaElement | undefined}
              data={data}
              renderers={formRenderers}
              cells={formCells}
              ajv={ajv}
              readonly={closed}
              validationMode={touched ? 'ValidateAndShow' : 'ValidateAndHide'}
              middleware={formData.middleware}
              onChange={({ data: next }) => onChange((next ?? {}) as Record<string, unknown>)}
            />
          </AgentFormContext.Provider>
        ) : (
          <Alert severity="error" role="alert">
            <AlertTitle>This form cannot be shown</AlertTitle>
            {form.agent} sent a form Deskhand does not accept: {check.problem}
          </Alert>
        )}
      </CardContent>
    </Card>
  );
}
