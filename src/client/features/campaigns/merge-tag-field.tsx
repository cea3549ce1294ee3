import { useLayoutEffect, useRef } from "react";
import { Button } from "@/client/components/ui/button";
import { Textarea } from "@/client/components/ui/textarea";
import { MERGE_TAG_BUTTONS, type MergeContact, renderPreview } from "@/server/lib/merge-tags";
import { useSender } from "./sender";

export { useSender };

/**
 * Renders `template` for the first recipient exactly as it will be sent (same function as the
 * server's send path), with the workspace's business for `{{my_business}}`.
 */
export function usePreview() {
  const { data } = useSender();
  return (template: string, contact: MergeContact | null) =>
    renderPreview(template, contact, data?.myBusiness ?? "");
}

/**
 * A message box with the merge-tag insert buttons (first name, full name, company, email, phone,
 * my business) that insert at the cursor. Every builder's content step uses it, so the tags and
 * their fallbacks are the same in email, SMS, calls, voicemail, video messages and avatar scripts.
 */
export function MergeTagTextarea({
  id,
  value,
  onChange,
  rows = 5,
  maxLength,
  ...rest
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  rows?: number;
  maxLength?: number;
} & Omit<React.ComponentProps<typeof Textarea>, "value" | "onChange" | "id" | "rows" | "maxLength">) {
  const ref = useRef<HTMLTextAreaElement>(null);
  // the caret after an inserted tag, placed when the box shows the text it was inserted into (in the
  // commit that renders it, before any later keystroke: placed a frame later, on a slow device it
  // moved the caret back while the person was already typing after the tag)
  const caret = useRef<{ text: string; at: number } | null>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    const pending = caret.current;
    if (!el || !pending) return;
    caret.current = null;
    if (value !== pending.text) return;
    el.focus();
    el.setSelectionRange(pending.at, pending.at);
  }, [value]);
  function insert(tag: string) {
    const el = ref.current;
    const start = el?.selectionStart ?? value.length;
    const end = el?.selectionEnd ?? value.length;
    const next = `${value.slice(0, start)}${tag}${value.slice(end)}`;
    if (maxLength !== undefined && next.length > maxLength) return;
    caret.current = { text: next, at: start + tag.length };
    onChange(next);
  }
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap gap-1.5" role="group" aria-label="Insert merge tag">
        {MERGE_TAG_BUTTONS.map((b) => (
          <Button
            key={b.tag}
            type="button"
            size="sm"
            variant="outline"
            title={`Insert ${b.tag}`}
            aria-label={`Insert ${b.label.toLowerCase()} (${b.tag})`}
            onClick={() => insert(b.tag)}
          >
            {b.label}
          </Button>
        ))}
      </div>
      <Textarea
        ref={ref}
        id={id}
        rows={rows}
        value={value}
        maxLength={maxLength}
        onChange={(e) => onChange(e.target.value)}
        {...rest}
      />
    </div>
  );
}
