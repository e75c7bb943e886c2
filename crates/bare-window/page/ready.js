// Marks `app-ready` in the performance timeline once the page's content is
// in the DOM and a frame with it has been drawn: the same rule Rootgate's
// window follows once its folders and servers are shown (ui/src/lib/ready.ts),
// so scripts/bench-app.sh compares like with like.
requestAnimationFrame(() => setTimeout(() => performance.mark("app-ready")));
