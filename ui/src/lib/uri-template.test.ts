// RFC 6570 expansion for resource templates, with the RFC's own examples
// (section 3.2) and the everything server's templates.
import { describe, expect, it } from "vitest";
import { expandTemplate, parseTemplate, templateVariables } from "./uri-template";

const VARS = { var: "value", hello: "Hello World!", path: "/foo/bar", x: "1024", y: "768", empty: "" };

describe("URI templates", () => {
  it("names its variables once each, in order", () => {
    expect(templateVariables("demo://resource/dynamic/text/{resourceId}")).toEqual(["resourceId"]);
    expect(templateVariables("file:///{+path}{?x,y}{&x}")).toEqual(["path", "x", "y"]);
    expect(templateVariables("no variables")).toEqual([]);
  });

  it.each([
    ["{var}", "value"],
    ["{hello}", "Hello%20World%21"],
    ["{+hello}", "Hello%20World!"],
    ["{+path}/here", "/foo/bar/here"],
    ["{#path}", "#/foo/bar"],
    ["map?{x,y}", "map?1024,768"],
    ["{.x,y}", ".1024.768"],
    ["{/var,x}/here", "/value/1024/here"],
    ["{;x,y,empty}", ";x=1024;y=768;empty"],
    ["{?x,y,empty}", "?x=1024&y=768&empty="],
    ["?fixed=yes{&x}", "?fixed=yes&x=1024"],
    ["{var:3}", "val"],
    ["{undef}", ""],
    ["{?undef,x}", "?x=1024"],
    ["{+path:6}/here", "/foo/b/here"],
  ])("%s → %s", (template, want) => {
    expect(expandTemplate(template, VARS)).toBe(want);
  });

  it("fills the everything server's template", () => {
    expect(expandTemplate("demo://resource/dynamic/text/{resourceId}", { resourceId: "3" })).toBe(
      "demo://resource/dynamic/text/3",
    );
  });

  it("keeps percent-encoded triplets in reserved expansion and encodes letters beyond ASCII", () => {
    expect(expandTemplate("{+p}", { p: "a%20b" })).toBe("a%20b");
    expect(expandTemplate("{p}", { p: "공유" })).toBe("%EA%B3%B5%EC%9C%A0");
  });

  it("is not a template with a brace left open or a bad name", () => {
    expect(parseTemplate("demo://{open")).toBe(null);
    expect(parseTemplate("{a b}")).toBe(null);
    expect(expandTemplate("{a b}", {})).toBe(null);
  });
});
