// Calls per server, added up over connections.
import { describe, expect, it } from "vitest";
import { callsByServer, errorRate } from "./call-stats";
import { connection } from "./testing";

describe("calls by server", () => {
  it("adds up each server's connections, the busiest first, and leaves out servers without calls", () => {
    const stats = callsByServer([
      connection("c1", { server: "s1", serverName: "files", calls: 3, errors: 1, callMsTotal: 30, callMsMax: 20 }),
      connection("c2", { server: "s1", serverName: "files", calls: 1, errors: 0, callMsTotal: 10, callMsMax: 10 }),
      connection("c3", { server: "s2", serverName: "git", calls: 10, errors: 0, callMsTotal: 55, callMsMax: 9 }),
      connection("c4", { server: "s3", serverName: "idle" }),
    ]);
    expect(stats).toEqual([
      { server: "s2", serverName: "git", calls: 10, errors: 0, meanMs: 6, slowestMs: 9 },
      { server: "s1", serverName: "files", calls: 4, errors: 1, meanMs: 10, slowestMs: 20 },
    ]);
  });

  it("says the errors with their share", () => {
    expect(errorRate({ calls: 10, errors: 0 })).toBe("none");
    expect(errorRate({ calls: 200, errors: 3 })).toBe("3 (1.5 %)");
    expect(errorRate({ calls: 4, errors: 1 })).toBe("1 (25 %)");
  });
});
