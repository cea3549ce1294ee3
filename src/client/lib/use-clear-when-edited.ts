import { useEffect, useRef } from "react";

/**
 * Clears an error banner once the user edits any of `values` (the fields the banner can be about), so a
 * fixed field's "Please enter ..." does not linger (issue 14). Compares with Object.is after each render.
 */
export function useClearWhenEdited(clear: (value: null) => void, values: readonly unknown[]) {
  const seen = useRef(values);
  useEffect(() => {
    if (values.length === seen.current.length && values.every((v, i) => Object.is(v, seen.current[i])))
      return;
    seen.current = values;
    clear(null);
  });
}
