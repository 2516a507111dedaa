import { useEffect, useRef } from 'react';
import { approvalNotice } from '../../../src-main/protocol';
import { useDeskhand, waitingCount } from '../store';
import { ApprovalNotifications, attentionTitle, servedTitleSuffix } from './attention';

// Read once, before any title this page sets replaces the one it was served with.
const TITLE_SUFFIX = servedTitleSuffix(document.title);

function notificationsAvailable(): boolean {
  return typeof Notification !== 'undefined';
}

/**
 * When the agent starts waiting for the user: the page title counts what waits (in every session, not
 * only the one on screen, an agent's form it waits on too; browser mode's mark stays in it), and a held step (confirm) raises a system
 * notification if the window is hidden or not focused; the notification closes once the step is
 * decided. Permission is asked the first time a step is held, not at start-up, so the request makes
 * sense to the user.
 */
export function useAttention(): void {
  const interactions = useDeskhand((state) => state.interactions);
  const waiting = useDeskhand(waitingCount);
  const seen = useRef(new Set<string>());
  const asked = useRef(false);
  const notifications = useRef(new ApprovalNotifications<Notification>());

  useEffect(() => {
    document.title = attentionTitle(waiting, TITLE_SUFFIX);
  }, [waiting]);

  useEffect(() => {
    notifications.current.sync(new Set(interactions.map((interaction) => interaction.id)));
    for (const interaction of interactions) {
      if (seen.current.has(interaction.id)) continue;
      seen.current.add(interaction.id);
      if (interaction.kind !== 'confirm' || !notificationsAvailable()) continue;
      const show = (): void => {
        if (Notification.permission !== 'granted') return;
        if (!document.hidden && document.hasFocus()) return;
        if (!notifications.current.isPending(interaction.id)) return;
        // Its kind only: the command or text could hold a secret, and notifications show on the lock screen.
        const notification = new Notification('Deskhand waits for your approval', {
          body: approvalNotice(interaction.actions),
          tag: interaction.id,
          requireInteraction: true,
        });
        notifications.current.add(interaction.id, notification);
        notification.onclick = () => {
          window.focus();
          notifications.current.close(interaction.id);
        };
      };
      if (Notification.permission === 'default' && !asked.current) {
        asked.current = true;
        void Notification.requestPermission().then(show, () => undefined);
      } else {
        show();
      }
    }
  }, [interactions]);
}
