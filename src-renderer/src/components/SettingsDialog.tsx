import type { UISchemaElement } from '@jsonforms/core';
import { JsonForms } from '@jsonforms/react';
import CloseIcon from '@mui/icons-material/Close';
import { Alert, Box, Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle, IconButton, Typography } from '@mui/material';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { SettingsView } from '../../../src-main/protocol';
import type { UiElement } from '../../../src-main/protocol/form-spec';
import { HostCommandError } from '../bridge';
import { formCells } from '../forms/renderers';
import { createFormsAjv } from '../forms/safe-ajv';
import type { SchemaError } from '../forms/schema-validator';
import { asFormError, describeErrors, fieldErrorFromMessage, refusalText } from '../forms/settings-errors';
import { settingsUiSchema, withoutNullAlternatives, withServerStatus } from '../forms/settings-schema';
import { useSettledInput } from '../forms/useSettledInput';
import { useBridge, useDeskhand, useUi } from '../store';
import { ApiKeyFields } from './ApiKeyFields';
import { focusOnceShown } from './focus';
import { settingsRenderers, UnsavedSettingsContext } from './ServerStatusElement';
import { ServerStatusList } from './ServerStatusList';
import { ViewErrorBoundary } from './ViewErrorBoundary';

/** The form for one settings snapshot; remounted (fresh state) whenever the host sends new settings. */
interface SettingsFormProps {
  view: SettingsView;
  onSaved(view: SettingsView): void;
  onClose(): void;
  /** Whether anything was changed since the form opened (a key typed counts). */
  onDirty(dirty: boolean): void;
}

function SettingsForm({ view, onSaved, onClose, onDirty }: SettingsFormProps) {
  const bridge = useBridge();
  const notify = useDeskhand((state) => state.notify);
  const shownSchema = useMemo(() => withoutNullAlternatives(view.schema) as Record<string, unknown>, [view.schema]);
  const layout = useMemo(() => {
    const base = (view.uischema ?? settingsUiSchema(shownSchema)) as UiElement | undefined;
    const withStatus = base ? withServerStatus(base) : null;
    return { uischema: (withStatus ?? base) as UISchemaElement | undefined, statusPlaced: withStatus !== null };
  }, [view.uischema, shownSchema]);
  const ajv = useMemo(() => createFormsAjv(new Map([[shownSchema, view.schema]])), [shownSchema, view.schema]);
  const [data, setData] = useState<Record<string, unknown>>(view.values);
  const [showErrors, setShowErrors] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [hostErrors, setHostErrors] = useState<ReturnType<typeof asFormError>[]>([]);
  const [typed, setTyped] = useState<Record<string, string>>({});
  const [removing, setRemoving] = useState<Set<string>>(new Set());
  const [saving, setSaving] = useState(false);
  /** Counts refused saves: each takes the focus to what to fix (see below). */
  const [refusals, setRefusals] = useState(0);
  const contentRef = useRef<HTMLDivElement>(null);
  const refusalRef = useRef<HTMLDivElement>(null);
  /** What the form holds now (read after the inputs settle, not from a stale render). */
  const latest = useRef<{ data: Record<string, unknown>; errors: SchemaError[] }>({ data: view.values, errors: [] });
  const { onInputCapture, changed, settle } = useSettledInput();
  /** The values as JSONForms first passed them on (with its defaults filled in): "changed" is against these. */
  const firstValues = useRef<string | null>(null);
  const [valuesChanged, setValuesChanged] = useState(false);
  /**
   * Keys typed into the form that it has not passed on yet (its fields wait 300 ms): they count as a
   * change until it has, or an Esc right after typing would close without asking.
   */
  const [inputPending, setInputPending] = useState(false);
  const inputSerial = useRef(0);
  const onFormInput = (): void => {
    onInputCapture();
    const serial = ++inputSerial.current;
    setInputPending(true);
    void settle().then(() => {
      if (serial === inputSerial.current) setInputPending(false);
    });
  };
  const dirty = valuesChanged || inputPending || removing.size > 0 || Object.values(typed).some((key) => key !== '');
  useEffect(() => onDirty(dirty), [dirty, onDirty]);

  /**
   * A refused Save says why in an alert at the top of the form, which may be scrolled out of sight while
   * the focus stays on Save: the keyboard goes to the first field marked wrong (once JSONForms has
   * marked it), or, when that field is on another tab, to the alert, which names it.
   */
  useEffect(() => {
    const root = contentRef.current;
    if (refusals === 0 || !root) return;
    return focusOnceShown(root, 'input[aria-invalid="true"], textarea[aria-invalid="true"]', 500, () => {
      refusalRef.current?.scrollIntoView({ block: 'nearest' });
      refusalRef.current?.focus();
    });
  }, [refusals]);

  const save = async (): Promise<void> => {
    setSaving(true);
    try {
      await settle();
      const { data: values, errors: found } = latest.current;
      if (found.length > 0) {
        setShowErrors(true);
        setRefusal(`Not saved: fix the marked values first (${describeErrors(found, view.schema)}).`);
        setRefusals((count) => count + 1);
        return;
      }
      const secrets: Record<string, string> = {};
      for (const [profile, key] of Object.entries(typed)) if (key.trim()) secrets[profile] = key.trim();
      for (const profile of removing) secrets[profile] = '';
      try {
        const saved = await bridge.send({ type: 'settings.set', values, ...(Object.keys(secrets).length > 0 ? { secrets } : {}) });
        notify('Settings saved.');
        onSaved(saved);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const field = error instanceof HostCommandError ? fieldErrorFromMessage(message, view.schema) : null;
        setShowErrors(true);
        setHostErrors(field ? [asFormError(field)] : []);
        setRefusal(field ? `Not saved: ${refusalText(field, view.schema)}` : `Not saved: ${message}`);
        setRefusals((count) => count + 1);
      }
    } finally {
      setSaving(false);
    }
  };

  return (
    <>
      <DialogContent dividers ref={contentRef}>
        {refusal && (
          <Alert ref={refusalRef} tabIndex={-1} severity="error" sx={{ mb: 2 }} role="alert">
            {refusal}
          </Alert>
        )}
        {/* Only the JSONForms inputs are debounced: typing an API key below must not hold Save back. */}
        {/* A description may have a line per choice (the approval setting's): its line breaks are kept. */}
        <Box onInputCapture={onFormInput} sx={{ '& .MuiFormHelperText-root': { whiteSpace: 'pre-line' } }}>
          <ViewErrorBoundary area="the settings form">
            <UnsavedSettingsContext.Provider value={dirty}>
              <JsonForms
                schema={shownSchema}
                uischema={layout.uischema}
                data={data}
                renderers={settingsRenderers}
                cells={formCells}
                ajv={ajv}
                validationMode={showErrors ? 'ValidateAndShow' : 'ValidateAndHide'}
                additionalErrors={hostErrors as never}
                onChange={({ data: next, errors: found }) => {
                  changed();
                  latest.current = { data: (next ?? {}) as Record<string, unknown>, errors: (found ?? []) as unknown as SchemaError[] };
                  const values = JSON.stringify(latest.current.data);
                  firstValues.current ??= values;
                  setValuesChanged(values !== firstValues.current);
                  setData(latest.current.data);
                  // Editing a refused field takes the host's complaint away; a new Save will tell.
                  if (hostErrors.length > 0 && JSON.stringify(next) !== JSON.stringify(data)) setHostErrors([]);
                }}
              />
            </UnsavedSettingsContext.Provider>
          </ViewErrorBoundary>
        </Box>
        {!layout.statusPlaced && <ServerStatusList unsavedChanges={dirty} />}
        <ApiKeyFields
          secrets={view.secrets}
          typed={typed}
          removing={removing}
          onType={(profile, key) => setTyped((current) => ({ ...current, [profile]: key }))}
          onToggleRemove={(profile) =>
            setRemoving((current) => {
              const next = new Set(current);
              if (!next.delete(profile)) next.add(profile);
              return next;
            })
          }
        />
      </DialogContent>
      <DialogActions>
        <Typography variant="caption" color="text.secondary" sx={{ mr: 'auto', pl: 2 }}>
          Values are checked here and again by Deskhand before they are used.
        </Typography>
        <Button onClick={onClose}>Cancel</Button>
        <Button variant="contained" onClick={() => void save()} disabled={saving}>
          Save
        </Button>
      </DialogActions>
    </>
  );
}

/** Settings, generated with JSONForms from the host's config schema (`settings.get`); Save sends `settings.set`. */
export function SettingsDialog() {
  const open = useUi((state) => state.settingsOpen);
  const setOpen = useUi((state) => state.setSettingsOpen);
  const bridge = useBridge();
  const [view, setView] = useState<SettingsView | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [serial, setSerial] = useState(0);

  useEffect(() => {
    if (!open) return;
    let current = true;
    setView(null);
    setProblem(null);
    bridge.send({ type: 'settings.get' }).then(
      (settings) => {
        if (!current) return;
        setView(settings);
        setSerial((n) => n + 1);
      },
      (error: unknown) => current && setProblem(error instanceof Error ? error.message : String(error)),
    );
    return () => {
      current = false;
    };
  }, [open, bridge]);

  const [dirty, setDirty] = useState(false);
  const [askDiscard, setAskDiscard] = useState(false);
  const close = () => {
    setAskDiscard(false);
    setDirty(false);
    setOpen(false);
  };
  return (
    <Dialog
      open={open}
      // A stray click beside a long form must not throw away what was typed in it, nor an Esc meant for a
      // field: that one asks first. Close and Cancel close.
      onClose={(_event, reason) => {
        if (reason === 'backdropClick') return;
        if (dirty) setAskDiscard(true);
        else close();
      }}
      fullWidth maxWidth="md" aria-labelledby="settings-title" slotProps={{ paper: { sx: { height: '85vh' } } }}>
      {/* Named by its title's text alone, not by the Close button inside the title too (an id of its own:
          without one, MUI gives the title the dialog's aria-labelledby). */}
      <DialogTitle id="settings-heading" sx={{ pr: 7 }}>
        <span id="settings-title">Settings</span>
        <IconButton aria-label="Close" onClick={close} sx={{ position: 'absolute', right: 8, top: 8 }}>
          <CloseIcon />
        </IconButton>
      </DialogTitle>
      {view ? (
        <SettingsForm
          key={serial}
          view={view}
          onClose={close}
          onSaved={() => {
            close();
          }}
          onDirty={setDirty}
        />
      ) : (
        <DialogContent dividers>
          <Box sx={{ p: 2 }}>
            {problem ? <Alert severity="error">Settings are not available: {problem}</Alert> : <Typography color="text.secondary">Loading…</Typography>}
          </Box>
        </DialogContent>
      )}
      <DiscardDialog open={askDiscard} onKeep={() => setAskDiscard(false)} onDiscard={close} />
    </Dialog>
  );
}

function DiscardDialog({ open, onKeep, onDiscard }: { open: boolean; onKeep(): void; onDiscard(): void }) {
  return (
    <Dialog open={open} onClose={onKeep} role="alertdialog" aria-labelledby="settings-discard-title" aria-describedby="settings-discard-text">
      <DialogTitle id="settings-discard-title">Discard your changes?</DialogTitle>
      <DialogContent>
        <DialogContentText id="settings-discard-text">The settings you changed have not been saved.</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onKeep} autoFocus>
          Keep editing
        </Button>
        <Button color="error" onClick={onDiscard}>
          Discard
        </Button>
      </DialogActions>
    </Dialog>
  );
}
