// Bringing what a try answered into view inside the pane of a server's
// Tools, Resources or Prompts: the answer appears below the form, often
// below the fold, so the pane (and only the pane, not the whole detail)
// scrolls it up. It moves nothing that is already well in view.

/** Scrolls the nearest scrolling ancestor marked `data-reveal-pane` so that `el`'s top is a quarter down it. */
export function revealInPane(el: HTMLElement | null | undefined): void {
  const pane = el?.closest<HTMLElement>("[data-reveal-pane]");
  if (!el || !pane) return;
  const offset = el.getBoundingClientRect().top - pane.getBoundingClientRect().top;
  // Its top is in the upper part of the pane already: leave the form where it is.
  if (offset >= 0 && offset <= pane.clientHeight * 0.6) return;
  pane.scrollTop += offset - pane.clientHeight * 0.25;
}

/**
 * A Svelte action for a try's outcome box: brings it into view in its pane
 * each time `key` (the try's id and state) changes to something, so that a
 * try that starts or ends shows below its form. `null`: nothing tried yet.
 */
export function revealWhen(node: HTMLElement, key: string | null) {
  const reveal = (k: string | null) => {
    if (k !== null) requestAnimationFrame(() => revealInPane(node));
  };
  reveal(key);
  return { update: reveal };
}
