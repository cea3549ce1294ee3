import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { activeTopNavLabel, breadcrumbsFor, TOP_NAV_ITEMS } from "../../src/client/components/layout/nav";
import { type DashboardStats, greeting } from "../../src/client/routes/_app/-components/dashboard/stats";

describe("top-bar navigation (spec section 2)", () => {
  it("lists the spec's items in order", () => {
    expect(TOP_NAV_ITEMS.map((i) => i.label)).toEqual([
      "Dashboard",
      "Studio",
      "Library",
      "Video Campaigns",
      "Email Campaigns",
      "Contacts",
      "Business Search",
      "Settings",
    ]);
  });

  it("marks one active item: Library by tab, longest prefix, Dashboard exactly", () => {
    expect(activeTopNavLabel("/studio", "library")).toBe("Library");
    expect(activeTopNavLabel("/studio", "upload")).toBe("Studio");
    expect(activeTopNavLabel("/contacts/business-search", undefined)).toBe("Business Search");
    expect(activeTopNavLabel("/contacts/42", undefined)).toBe("Contacts");
    expect(activeTopNavLabel("/dashboard/", undefined)).toBe("Dashboard");
    expect(activeTopNavLabel("/pricing", undefined)).toBeUndefined();
  });
});

describe("dashboard greeting (issue 14)", () => {
  const stat = (value: number) => ({ value, previous: 0, changePct: null });
  const stats = (n: number): DashboardStats => ({
    totalCampaigns: stat(0),
    totalContacts: stat(n),
    messagesSent: stat(0),
    engagementRate: stat(0),
  });

  it("is neutral while loading, welcomes a first visit, welcomes back later", () => {
    expect(greeting("Ada", undefined)).toBe("Welcome, Ada!");
    expect(greeting("Ada", stats(0))).toBe("Welcome to Pitchwise, Ada!");
    expect(greeting("Ada", stats(3))).toBe("Welcome back, Ada!");
  });
});

describe("breadcrumbs of pages about one record", () => {
  it("name the page, not the record's id ('Dashboard > Campaigns > 5' read as a number)", () => {
    expect(breadcrumbsFor("/campaigns/5").map((c) => c.label)).toEqual([
      "Dashboard",
      "Campaigns",
      "Campaign Report",
    ]);
    expect(breadcrumbsFor("/contacts/99").at(-1)?.label).toBe("Contact Details");
  });

  it("name each page of its own under /contacts, not 'Contact Details' (opt-outs read so)", () => {
    const pages = readdirSync(new URL("../../src/client/routes/_app/contacts/", import.meta.url))
      .map((f) => f.replace(/\.tsx$/, ""))
      .filter((f) => f !== "$id" && f !== "index");
    expect(pages).toContain("opt-outs");
    for (const p of pages)
      expect(breadcrumbsFor(`/contacts/${p}`).at(-1)?.label, p).not.toBe("Contact Details");
    expect(breadcrumbsFor("/contacts/opt-outs").map((c) => c.label)).toEqual([
      "Dashboard",
      "Contacts",
      "Opt-outs",
    ]);
  });
});
