import { UPDATE_CORE, UPDATE_DATA, type Middleware } from '@jsonforms/core';
import { LocalEdits, valueChanges, type ValueChange } from './changes';

type FormData = Record<string, unknown>;

/**
 * An agent form's data between the host and JSONForms. Data from the host (the agent's update, or the
 * echo of an edit) is shown with the user's edits it does not show yet on top (`edits`).
 *
 * JSONForms passes a control's change to onChange only 10 ms after making it (a debounce of its own),
 * and new props in between (new data, or only a new copy of the schema, which every update of the form
 * brings) make it start again from its data prop, which lacks the change: a box ticked just before the
 * agent's update came would be unticked, and the tick never sent. So while it holds a change, it keeps
 * its own data over that prop, and host data waits for the onChange that makes the change an edit;
 * then both are shown.
 */
export class AgentFormData {
  readonly edits = new LocalEdits();
  /** The data as the form last showed it: what onChange's data is compared against. */
  private shown: unknown;
  private hostJson: string;
  /** A control changed the data and onChange has not passed it on yet. */
  private holding = false;
  private waiting: FormData | null = null;

  constructor(initial: FormData) {
    this.shown = initial;
    this.hostJson = JSON.stringify(initial);
  }

  /**
   * JSONForms' `middleware`: sees every change a control makes, as it makes it. It only sets a flag
   * besides reducing, so React calling it twice for one change (StrictMode) does no harm.
   */
  readonly middleware: Middleware = (state, action, reducer) => {
    // While a change is held, the data prop is still what the form showed before it (see fromHost).
    if (action.type === UPDATE_CORE && this.holding) return reducer(state, { ...action, data: state.data });
    const next = reducer(state, action);
    // New data is what JSONForms passes to onChange, which ends the hold.
    if (action.type === UPDATE_DATA && next.data !== state.data) this.holding = true;
    return next;
  };

  /** The host's data: what the form is to show now, or null when that stays as it is (or it waits for onChange). */
  fromHost(data: FormData): FormData | null {
    const json = JSON.stringify(data);
    if (json === this.hostJson) return null;
    this.hostJson = json;
    if (this.holding) {
      this.waiting = data;
      return null;
    }
    return this.show(data);
  }

  /**
   * JSONForms' onChange: the user's changes in `next` (now edits to send; none when the form takes no
   * edits), and the host's data that waited for them, with them on top, if any came.
   */
  fromForm(next: FormData, editable: boolean): { changes: ValueChange[]; show: FormData | null } {
    this.holding = false;
    let changes: ValueChange[] = [];
    if (editable) {
      changes = valueChanges(this.shown, next);
      this.shown = next;
      for (const change of changes) this.edits.edit(change.path, change.value);
    }
    const waiting = this.waiting;
    this.waiting = null;
    return { changes, show: waiting ? this.show(waiting) : null };
  }

  private show(data: FormData): FormData | null {
    const merged = this.edits.merge(data);
    if (JSON.stringify(merged) === JSON.stringify(this.shown)) return null;
    this.shown = merged;
    return merged;
  }
}
