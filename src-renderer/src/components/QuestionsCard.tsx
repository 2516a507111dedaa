import type { UISchemaElement } from '@jsonforms/core';
import { JsonForms } from '@jsonforms/react';
import { Alert, Box, Button, Card, CardContent, Typography } from '@mui/material';
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import type { Interaction } from '../../../src-main/protocol';
import { answersInOrder, questionsForm } from '../forms/questions';
import { formCells, formRenderers } from '../forms/renderers';
import { createFormsAjv } from '../forms/safe-ajv';
import { useSettledInput } from '../forms/useSettledInput';
import { useDeskhand } from '../store';
import { draftKey, useDraft } from './drafts';
import { focusOnceShown, noteAnswered, noteCardLeaving, waitingCardProps } from './focus';
import { pressThroughShift } from '../forms/press-through-shift';

type QuestionsInteraction = Extract<Interaction, { kind: 'questions' }>;

/**
 * A question is the field's label, and MUI draws a label on one line inside the field's border, cut
 * off with "…" past the field's width (a sentence in an 800 px window): each question is drawn whole
 * above its field instead, still the field's label (its name for screen readers), with no gap in the
 * border left for it.
 */
const wholeQuestionLabels = {
  '& .MuiFormControl-root > .MuiInputLabel-root': {
    position: 'static',
    transform: 'none',
    whiteSpace: 'normal',
    overflow: 'visible',
    overflowWrap: 'anywhere',
    maxWidth: 'none',
    mb: 0.75,
  },
  '& .MuiOutlinedInput-notchedOutline legend': { maxWidth: '0.01px', padding: 0 },
} as const;

/**
 * The agent's questions (status PENDING) as a JSONForms form: one required field per question.
 * "Submit answers" sends them in order; the card goes when the host says the questions are resolved.
 */
export function QuestionsCard({ interaction }: { interaction: QuestionsInteraction }) {
  const answer = useDeskhand((state) => state.answer);
  const { schema, uischema } = useMemo(() => questionsForm(interaction.questions), [interaction.questions]);
  const ajv = useMemo(createFormsAjv, []);
  const [data, setData] = useDraft<Record<string, unknown>>(draftKey(interaction), {});
  const latest = useRef<Record<string, unknown>>(data);
  const { onInputCapture, changed, settle } = useSettledInput();
  const [showErrors, setShowErrors] = useState(false);
  const [state, setState] = useState<'editing' | 'sending' | 'sent'>('editing');
  const titleId = `questions-${interaction.id}`;
  const cardRef = useRef<HTMLElement>(null);
  useLayoutEffect(() => {
    const card = cardRef.current;
    return () => noteCardLeaving(card);
  }, []);
  const stopFocusing = useRef<(() => void) | null>(null);
  useEffect(() => () => stopFocusing.current?.(), []);

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    if (state !== 'editing') return;
    setState('sending');
    await settle();
    const answers = answersInOrder(interaction.questions, latest.current);
    if (!answers) {
      setShowErrors(true);
      setState('editing');
      // By keyboard, the way on is the first question left empty, once it is marked (a render or two from here).
      stopFocusing.current?.();
      const card = cardRef.current;
      stopFocusing.current = card === null ? null : focusOnceShown(card, '[aria-invalid="true"]');
      return;
    }
    noteAnswered(interaction.id);
    setState((await answer(interaction.id, answers)) ? 'sent' : 'editing');
  };

  const missing = showErrors && answersInOrder(interaction.questions, data) === null;
  return (
    <Card ref={cardRef} {...waitingCardProps} variant="outlined" component="section" aria-labelledby={titleId} sx={{ borderColor: 'warning.main', borderWidth: 2 }}>
      <CardContent>
        <Typography id={titleId} variant="h6" component="h3" gutterBottom>
          {interaction.questions.length === 1 ? 'A question from the agent' : `${interaction.questions.length} questions from the agent`}
        </Typography>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
          {interaction.agent} waits for your answers before it goes on.
        </Typography>
        <Box component="form" onSubmit={(event) => void submit(event)} onInputCapture={onInputCapture} noValidate sx={wholeQuestionLabels}>
          <JsonForms
            schema={schema}
            uischema={uischema as unknown as UISchemaElement}
            data={data}
            renderers={formRenderers}
            cells={formCells}
            ajv={ajv}
            readonly={state === 'sent'}
            validationMode={showErrors ? 'ValidateAndShow' : 'ValidateAndHide'}
            onChange={({ data: next }) => {
              latest.current = (next ?? {}) as Record<string, unknown>;
              changed();
              setData(latest.current);
            }}
          />
          {missing && (
            <Alert severity="warning" sx={{ mt: 1 }}>
              Answer every question before submitting.
            </Alert>
          )}
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mt: 2 }}>
            <Button
              type="submit"
              variant="contained"
              disabled={state !== 'editing'}
              // The warnings above go as the field typed in last passes its answer on, and move the button:
              // a press must not be lost to that. Submit waits for the answer (settle) as for Enter.
              onMouseDown={pressThroughShift}>
              Submit answers
            </Button>
            {state === 'sent' && (
              <Typography variant="body2" color="text.secondary">
                Sent; the agent goes on.
              </Typography>
            )}
          </Box>
        </Box>
      </CardContent>
    </Card>
  );
}
