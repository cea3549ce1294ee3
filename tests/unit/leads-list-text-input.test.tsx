// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { ListTextInput } from "../../src/client/features/leads/list-text-input";

afterEach(cleanup);

/** The filter panel's use: the parent keeps the parsed list and feeds it back as `value`. */
function Harness({ initial }: { initial?: string[] }) {
  const [value, setValue] = useState<string[] | undefined>(initial);
  return (
    <>
      <label htmlFor="zips">Include ZIP codes</label>
      <ListTextInput id="zips" value={value} onChange={setValue} />
      <output data-testid="value">{JSON.stringify(value ?? null)}</output>
      <button type="button" onClick={() => setValue(undefined)}>
        Reset
      </button>
    </>
  );
}

describe("ListTextInput (business search list filters)", () => {
  it("keeps the comma a person types, so a second item can be typed", () => {
    render(<Harness />);
    const input = screen.getByLabelText("Include ZIP codes") as HTMLInputElement;
    // typing "48601, 48602" one keystroke at a time
    let typed = "";
    for (const ch of "48601, 48602") {
      typed = `${input.value}${ch}`;
      fireEvent.change(input, { target: { value: typed } });
    }
    // before: the comma vanished as it was typed ("48601" re-rendered from the parsed list)
    expect(input.value).toBe("48601, 48602");
    expect(screen.getByTestId("value").textContent).toBe('["48601","48602"]');
  });

  it("shows a value set from outside (reset, a loaded saved search)", () => {
    render(<Harness initial={["48601"]} />);
    const input = screen.getByLabelText("Include ZIP codes") as HTMLInputElement;
    expect(input.value).toBe("48601");
    fireEvent.change(input, { target: { value: "48601, 4" } });
    fireEvent.click(screen.getByText("Reset"));
    expect(input.value).toBe("");
    expect(screen.getByTestId("value").textContent).toBe("null");
  });
});
