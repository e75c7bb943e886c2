// The activity's state against the fake backend: what it counts of a server
// Rootgate gave up on.
import { describe, expect, it } from "vitest";
import { started } from "./testing";
import { entry, server } from "../testing";

describe("a server Rootgate gave up on", () => {
  it("counts the attempts of a server Rootgate gave up on from the activity", async () => {
    const { app, handlers } = await started();
    app.servers.list = [server("s", { gaveUp: true }), server("t")];
    handlers.timeline?.([
      { ...entry(1, "s"), event: { kind: "gaveUp", attempts: 5 } },
      { ...entry(2, "t"), event: { kind: "gaveUp", attempts: 3 } },
    ]);
    expect([...app.activity.gaveUpAfter]).toEqual([["s", 5]]);
  });
});
