// RFC 6570 URI templates, as resource templates use them
// ("demo://resource/dynamic/text/{resourceId}"): the variables a template
// names, and the URI it expands to with string values (levels 1 to 4:
// every operator, prefixes; explode changes nothing for a string). Pure.
// It does not check that the URI is one the server will read: the server
// says so when it is read.

export interface Expression {
  operator: string;
  vars: { name: string; prefix: number | null }[];
}

type Part = string | Expression;

const OPERATORS: Record<string, { first: string; sep: string; named: boolean; ifEmpty: string; reserved: boolean }> = {
  "": { first: "", sep: ",", named: false, ifEmpty: "", reserved: false },
  "+": { first: "", sep: ",", named: false, ifEmpty: "", reserved: true },
  "#": { first: "#", sep: ",", named: false, ifEmpty: "", reserved: true },
  ".": { first: ".", sep: ".", named: false, ifEmpty: "", reserved: false },
  "/": { first: "/", sep: "/", named: false, ifEmpty: "", reserved: false },
  ";": { first: ";", sep: ";", named: true, ifEmpty: "", reserved: false },
  "?": { first: "?", sep: "&", named: true, ifEmpty: "=", reserved: false },
  "&": { first: "&", sep: "&", named: true, ifEmpty: "=", reserved: false },
};

/** The template's literal parts and expressions; null when it is not a template (a brace left open, a bad name). */
export function parseTemplate(template: string): Part[] | null {
  const parts: Part[] = [];
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf("{", at);
    if (open < 0) {
      parts.push(template.slice(at));
      break;
    }
    if (open > at) parts.push(template.slice(at, open));
    const close = template.indexOf("}", open);
    if (close < 0) return null;
    let body = template.slice(open + 1, close);
    let operator = "";
    if (body !== "" && "+#./;?&".includes(body[0])) {
      operator = body[0];
      body = body.slice(1);
    }
    const vars: Expression["vars"] = [];
    for (const spec of body.split(",")) {
      const m = /^((?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*)(?::([1-9][0-9]{0,3})|\*)?$/.exec(spec);
      if (!m) return null;
      vars.push({ name: m[1], prefix: m[2] ? Number(m[2]) : null });
    }
    parts.push({ operator, vars });
    at = close + 1;
  }
  return parts;
}

/** The variables a template names, in order, each once. */
export function templateVariables(template: string): string[] {
  const parts = parseTemplate(template) ?? [];
  const names: string[] = [];
  for (const p of parts) {
    if (typeof p === "string") continue;
    for (const v of p.vars) if (!names.includes(v.name)) names.push(v.name);
  }
  return names;
}

function encode(value: string, reserved: boolean): string {
  let out = "";
  for (const ch of value) {
    if (/[A-Za-z0-9\-._~]/.test(ch) || (reserved && /[:/?#[\]@!$&'()*+,;=]/.test(ch))) out += ch;
    else out += [...new TextEncoder().encode(ch)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("");
  }
  // With reserved expansion, a percent-encoded triplet already there stays.
  return reserved ? out.replace(/%25([0-9A-Fa-f]{2})/g, "%$1") : out;
}

/**
 * The URI a template expands to. A variable with no value (absent from
 * `values`) is left out, as RFC 6570 says of undefined ones; an empty
 * string is a value. Null when the template does not parse.
 */
export function expandTemplate(template: string, values: Readonly<Record<string, string | undefined>>): string | null {
  const parts = parseTemplate(template);
  if (!parts) return null;
  let out = "";
  for (const p of parts) {
    if (typeof p === "string") {
      out += p;
      continue;
    }
    const op = OPERATORS[p.operator];
    const pieces: string[] = [];
    for (const v of p.vars) {
      const raw = values[v.name];
      if (raw === undefined) continue;
      const value = v.prefix === null ? raw : [...raw].slice(0, v.prefix).join("");
      const encoded = encode(value, op.reserved);
      if (op.named) pieces.push(value === "" ? `${v.name}${op.ifEmpty}` : `${v.name}=${encoded}`);
      else pieces.push(encoded);
    }
    if (pieces.length > 0) out += op.first + pieces.join(op.sep);
  }
  return out;
}
