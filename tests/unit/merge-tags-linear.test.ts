import { describe, expect, it } from "vitest";
import { mergeTagsIn, renderMergeTags } from "../../src/server/lib/merge-tags";
import { cpuMsSince } from "../cpu-time";

/** The merge-tag pattern as it was: the reference for what is a tag (fine on short text). */
const REFERENCE_TAG_RE = /\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*(?:\|([^}]*))?\}\}/g;

/** renderMergeTags with every field of `template` given as the value `<field>`. */
function marked(template: string): string {
  const fields = mergeTagsIn(template);
  return renderMergeTags(template, {}, { extra: Object.fromEntries(fields.map((f) => [f, `<${f}>`])) });
}

describe("merge tags", () => {
  it("find the same tags as before, fallbacks included, on tricky and random templates", () => {
    const cases = [
      "Hi {{first_name|there}}, {{ company }}!",
      "{{{name}}}",
      "{{name|{x}}}",
      "{{name|a}b}}",
      "{{a|b}}{{c}}",
      "{{a|",
      "{{ a . b | c d }}",
      "{{1a}} {{_a}} {{a b}}",
      "{{a|}}}}",
      "{{{{a}}}}",
      "}}{{a||b}}",
    ];
    const alphabet = ["{", "{", "}", "}", "|", "a", "b", " ", ".", "_", "1", "x"];
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 3000; i++)
      cases.push(
        Array.from(
          { length: 1 + Math.floor(rand() * 16) },
          () => alphabet[Math.floor(rand() * alphabet.length)],
        ).join(""),
      );
    const defaults: Record<string, string> = { name: "there", first_name: "there", company: "your company" };
    for (const c of cases) {
      const fields = [
        ...new Set(Array.from(c.matchAll(REFERENCE_TAG_RE), (m) => (m[1] as string).toLowerCase())),
      ];
      expect(mergeTagsIn(c), c).toEqual(fields);
      expect(marked(c), c).toBe(c.replace(REFERENCE_TAG_RE, (_m, f: string) => `<${f.toLowerCase()}>`));
      // without values, each tag renders its fallback (or the field's default)
      expect(renderMergeTags(c, {}), c).toBe(
        c.replace(REFERENCE_TAG_RE, (_m, f: string, fb?: string) =>
          fb !== undefined ? fb.trim() : (defaults[f.toLowerCase()] ?? ""),
        ),
      );
    }
  });

  it("take time linear in the template's length: 100,000 characters of unclosed fallbacks render at once", () => {
    // "{{a|{{a|{{a|...": each tag start scanned to the text's end for its closing braces (quadratic:
    // 6 s for this template, per recipient and per part, and 13 s for one test email)
    const template = "{{a|".repeat(25_000);
    // CPU time, not wall time: a loaded machine (a full test run beside other work) stretches the
    // latter many times over, but not the work this process does
    const started = process.cpuUsage();
    expect(renderMergeTags(template, {})).toBe(template);
    expect(mergeTagsIn(`{{a |${template}`)).toEqual([]);
    expect(cpuMsSince(started)).toBeLessThan(250);
  });
});
