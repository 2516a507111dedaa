/**
 * The system notifications shown for what waits for the user, by `waitingKey`. Each is held here until
 * what it announced no longer waits, then closed: a Notification that only a local variable refers to
 * can be garbage-collected, and its click handler with it (electron/electron#16922), and closing it
 * takes it out of the system's notification history too.
 */
export interface ClosableNotification {
  close(): void;
}

export class WaitingNotifications<T extends ClosableNotification = ClosableNotification> {
  private readonly shown = new Map<string, T>();

  add(key: string, notification: T): void {
    this.shown.get(key)?.close();
    this.shown.set(key, notification);
  }

  /** Closes and forgets the notification shown under `key`, if any. */
  close(key: string): void {
    this.shown.get(key)?.close();
    this.shown.delete(key);
  }

  closeAll(): void {
    for (const key of [...this.shown.keys()]) this.close(key);
  }

  get size(): number {
    return this.shown.size;
  }
}
