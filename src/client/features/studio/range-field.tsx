import { type KeyboardEvent, useId } from "react";

/**
 * Labelled native range slider with its value shown (keyboard accessible: arrows, Page Up/Down).
 * `valueText` is what a screen reader says for the value (aria-valuetext; default the shown
 * `format`); `onKeyDown` may take keys over (the editor's time sliders step by steppedTime);
 * `step` "any" lets the pointer drag freely.
 */
export function RangeField({
  label,
  value,
  min,
  max,
  step = 1,
  onChange,
  format = (v) => String(v),
  valueText,
  onKeyDown,
  disabled,
}: {
  label: string;
  value: number;
  min: number;
  max: number;
  step?: number | "any";
  onChange: (v: number) => void;
  format?: (v: number) => string;
  valueText?: (v: number) => string;
  onKeyDown?: (e: KeyboardEvent<HTMLInputElement>) => void;
  disabled?: boolean;
}) {
  const id = useId();
  return (
    <div className="min-w-0 space-y-1.5">
      <div className="flex items-center justify-between gap-2 text-sm">
        <label htmlFor={id} className="font-medium">
          {label}
        </label>
        <output htmlFor={id} className="tabular-nums text-muted-foreground">
          {format(value)}
        </output>
      </div>
      <input
        id={id}
        type="range"
        min={min}
        max={max}
        step={step}
        value={value}
        disabled={disabled}
        aria-valuetext={valueText?.(value)}
        onKeyDown={onKeyDown}
        onChange={(e) => onChange(Number(e.target.value))}
        className="w-full accent-primary disabled:opacity-50"
      />
    </div>
  );
}
