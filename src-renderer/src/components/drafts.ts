import { useCallback, useEffect, useState } from 'react';
import { useDeskhand } from '../store';

/**
 * What the user typed into a card that waits for them (an approval's note, half-filled answers), by
 * card. A card unmounts when another session is opened; this keeps its text for when the user comes
 * back. Dropped once the interaction is no longer pending (see `keepDraftsOf`).
 */
const drafts = new Map<string, unknown>();

export function useDraft<T>(key: string, initial: T): [T, (next: T) => void] {
  const [value, setValue] = useState<T>(() => (drafts.has(key) ? (drafts.get(key) as T) : initial));
  const update = useCallback(
    (next: T): void => {
      drafts.set(key, next);
      setValue(next);
    },
    [key],
  );
  return [value, update];
}

export function draftKey(interaction: { sessionId: string; id: string }): string {
  return `${interaction.sessionId}/${interaction.id}`;
}

/** Forgets the drafts of interactions no longer pending (answered, decided, or their session ended). */
export function useDraftCleanup(): void {
  const interactions = useDeskhand((state) => state.interactions);
  useEffect(() => {
    const pending = new Set(interactions.map(draftKey));
    for (const key of drafts.keys()) if (!pending.has(key)) drafts.delete(key);
  }, [interactions]);
}
