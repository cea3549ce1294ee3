import { describe, expect, it } from "vitest";
import { resolveLocation } from "../../src/server/features/leads/leads.location";

describe("resolveLocation coordinates", () => {
  it("accepts coordinates on US land (and just off the coast)", () => {
    expect(resolveLocation("30.27, -97.74")).toMatchObject({ lat: 30.27, lng: -97.74 });
    expect(resolveLocation("43.4,-83.9")).toMatchObject({ lat: 43.4, lng: -83.9 });
    expect(resolveLocation("21.3069, -157.8583")).toMatchObject({ lat: 21.3069 }); // Honolulu
    expect(resolveLocation("25.77, -80.10")).toMatchObject({ lng: -80.1 }); // off Miami Beach
  });

  it("refuses an ocean point with a sentence saying why (before: a 200 with no results)", () => {
    expect(() => resolveLocation("30.0, -40.0")).toThrow(/not near any US ZIP code \(open water/);
    expect(() => resolveLocation("0, 0")).toThrow(/not near any US ZIP code/);
    expect(() => resolveLocation("35.0, -140.0")).toThrow(/open water or outside the United States/);
  });

  it("names the range of out-of-range coordinates", () => {
    expect(() => resolveLocation("95, 200")).toThrow(/latitude goes from -90 to 90/);
  });
});

describe("resolveLocation ZIP codes without a place", () => {
  it("refuses military APO/FPO ZIP codes and cities instead of searching at 0, 0 or abroad", () => {
    expect(() => resolveLocation("34001")).toThrow(/military APO\/FPO/); // before: 0, 0 in the Gulf of Guinea
    expect(() => resolveLocation("34030")).toThrow(/military APO\/FPO/); // before: Rio de Janeiro
    expect(() => resolveLocation("Apo")).toThrow(/We could not find "Apo"/);
    expect(resolveLocation("96910")).toMatchObject({ label: expect.stringContaining("GU") }); // Guam
  });
});
