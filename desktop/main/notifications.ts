/**
 * System notifications. Each one is kept referenced until it closes: a notification object that is
 * garbage-collected loses its click handler, and the click is how the user gets to the prompt.
 */
import { Notification } from 'electron';

const live = new Set<Notification>();

export function showNotification(title: string, body: string, onClick?: () => void): void {
  if (!Notification.isSupported()) return;
  const notification = new Notification({ title, body, urgency: 'normal', timeoutType: 'default' });
  live.add(notification);
  notification.on('click', () => onClick?.());
  notification.on('close', () => live.delete(notification));
  notification.on('failed', () => live.delete(notification));
  notification.show();
}
