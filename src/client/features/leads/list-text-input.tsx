import { useEffect, useRef, useState } from "react";
import { Input } from "@/client/components/ui/input";

/** "a, b,,c " -> ["a", "b", "c"]. */
export function parseList(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

const same = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * A comma-separated list typed as text (the filter panel's ZIP codes, service areas, languages): the
 * field keeps what the person typed (a trailing comma, spaces) and reports the parsed list
 * (`undefined` when empty) on every change; a new `value` from outside (Reset All Filters, a loaded
 * saved search) replaces the text.
 */
export function ListTextInput({
  id,
  value,
  onChange,
  disabled,
  placeholder = "comma-separated",
}: {
  id: string;
  value: readonly (string | number)[] | undefined;
  onChange: (next: string[] | undefined) => void;
  disabled?: boolean;
  placeholder?: string;
}) {
  const list = (value ?? []).map(String);
  const [text, setText] = useState(list.join(", "));
  const sent = useRef<string[]>(list);
  const key = list.join("\u0000");
  // a value that is not the one this field sent came from outside: show it
  useEffect(() => {
    if (!same(list, sent.current)) {
      sent.current = list;
      setText(list.join(", "));
    }
  }, [key]);
  return (
    <Input
      id={id}
      disabled={disabled}
      placeholder={placeholder}
      value={text}
      onChange={(e) => {
        const t = e.target.value;
        setText(t);
        const parts = parseList(t);
        sent.current = parts;
        onChange(parts.length ? parts : undefined);
      }}
    />
  );
}
