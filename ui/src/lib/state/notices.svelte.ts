// What the window tells the person outside any view: toasts (at most five,
// one per message, an error or a note, perhaps with an Undo), the question
// of the confirmation dialog while it waits for an answer, and the banner
// saying the settings file could not be read in full. Every other area
// gets this one passed in and says things through it.
//
// Not here: what a toast or the dialog looks like (Toast.svelte,
// ConfirmDialog.svelte, App.svelte's banner), or the words of any message
// (each area writes its own).

export interface ToastAction {
  label: string;
  run: () => void;
}

export interface Toast {
  id: number;
  message: string;
  tone: "error" | "info";
  /** A button on the toast (Undo); pressing it also dismisses the toast. */
  action?: ToastAction;
}

export interface ConfirmRequest {
  title: string;
  body: string;
  ok: string;
  danger: boolean;
  resolve: (ok: boolean) => void;
}

/** How many toasts are shown at once; older ones give way. */
export const MAX_TOASTS = 5;

export class NoticesState {
  toasts = $state.raw<Toast[]>([]);
  /** The question the confirmation dialog asks, while it is open. */
  confirmRequest = $state.raw<ConfirmRequest | null>(null);
  /** Why the settings file could not be read in full (a banner), or null. */
  recovery = $state<string | null>(null);

  private nextToast = 1;

  /** Shows a toast, unless the same words are shown already or there are none. */
  notify(message: string, tone: Toast["tone"] = "error", action?: ToastAction): void {
    const text = message.trim();
    if (text === "" || this.toasts.some((t) => t.message === text)) return;
    const toast: Toast = { id: this.nextToast++, message: text, tone, ...(action ? { action } : {}) };
    this.toasts = [...this.toasts, toast].slice(-MAX_TOASTS);
  }

  dismiss(id: number): void {
    this.toasts = this.toasts.filter((t) => t.id !== id);
  }

  /** Takes away the toast that offers an action with these words: the action was taken another way. */
  withdrawOffer(message: string): void {
    this.toasts = this.toasts.filter((t) => !(t.action && t.message === message));
  }

  /** Asks in the confirmation dialog; a question still open is answered No first. */
  confirm(request: Omit<ConfirmRequest, "resolve">): Promise<boolean> {
    this.confirmRequest?.resolve(false);
    return new Promise((resolve) => {
      this.confirmRequest = {
        ...request,
        resolve: (ok) => {
          this.confirmRequest = null;
          resolve(ok);
        },
      };
    });
  }
}
