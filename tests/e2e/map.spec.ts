import { expect, type Page, test } from "@playwright/test";

/**
 * Contact map (issue 14 section 5): the street style (MAP_STYLE_URL, OpenFreeMap by default) is
 * requested; when it cannot load (this machine is offline; the test also blocks it) the offline state
 * outline is drawn; nearby contacts are clustered; the view fits every contact; a style that does load
 * is used.
 */
test.use({ reducedMotion: "reduce" });
test.setTimeout(180_000);

const STYLE_URL = "https://tiles.openfreemap.org/styles/liberty";

const PEOPLE = [
  { first_name: "Ann", last_name: "Bay", city: "Bay City", state: "MI", postal_code: "48706" },
  { first_name: "Ben", last_name: "Bay", city: "Bay City", state: "MI", postal_code: "48708" },
  { first_name: "Cat", last_name: "Saginaw", city: "Saginaw", state: "MI", postal_code: "48601" },
  { first_name: "Dan", last_name: "Saginaw", city: "Saginaw", state: "MI", postal_code: "48602" },
  { first_name: "Eve", last_name: "York", city: "New York", state: "NY", postal_code: "10001" },
  { first_name: "Fay", last_name: "Francisco", city: "San Francisco", state: "CA", postal_code: "94103" },
];

async function registerWithLocatedContacts(page: Page, origin: string) {
  const email = `map-e2e-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const reg = await page.request.post("/api/auth/register", {
    data: { name: "Mia Map", email, password: "correct-horse-battery", business_name: "Map Co" },
  });
  expect(reg.ok()).toBe(true);
  for (const p of PEOPLE) {
    const r = await page.request.post("/api/contacts", {
      data: { ...p, email: `${p.first_name.toLowerCase()}@example.com`, country: "United States" },
      headers: { origin }, // cookie-carrying mutations need a same-origin Origin header
    });
    expect(r.ok(), await r.text()).toBe(true);
  }
  // the geocode job places them
  await expect
    .poll(
      async () => ((await (await page.request.get("/api/contacts/map")).json()).contacts as unknown[]).length,
      { timeout: 30_000 },
    )
    .toBe(PEOPLE.length);
}

/** Every marker and cluster button lies inside the map's box. */
async function expectAllInside(page: Page) {
  const map = await page.getByTestId("contact-map").boundingBox();
  if (!map) throw new Error("map not laid out");
  const boxes = await page
    .locator('[data-testid="contact-map"] .maplibregl-marker')
    .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON() as DOMRect));
  expect(boxes.length).toBeGreaterThan(0);
  for (const b of boxes) {
    expect(b.x + b.width / 2).toBeGreaterThanOrEqual(map.x);
    expect(b.x + b.width / 2).toBeLessThanOrEqual(map.x + map.width);
    expect(b.y + b.height / 2).toBeGreaterThanOrEqual(map.y);
    expect(b.y + b.height / 2).toBeLessThanOrEqual(map.y + map.height);
  }
}

test("street style requested, offline outline when it cannot load, clusters, fit to all", async ({
  page,
  baseURL,
}) => {
  await registerWithLocatedContacts(page, baseURL!);
  const styleRequests: string[] = [];
  await page.route("https://tiles.openfreemap.org/**", (route) => {
    styleRequests.push(route.request().url());
    return route.abort("internetdisconnected");
  });

  await page.goto("/contacts/map");
  await expect(page.getByRole("heading", { name: `Contact Map (${PEOPLE.length} contacts)` })).toBeVisible();
  const map = page.getByTestId("contact-map");
  await expect(map).toHaveAttribute("data-basemap", "offline");
  await expect(page.getByText("Street map unavailable: showing state outlines")).toBeVisible();
  expect(styleRequests).toContain(STYLE_URL);

  // fitted to the whole country: the four Michigan contacts form clusters, New York and San Francisco
  // are single markers, and everything is on screen
  await expect(page.locator('[title="Eve York"]')).toBeVisible();
  await expect(page.locator('[title="Fay Francisco"]')).toBeVisible();
  const clusters = page.getByTestId("map-cluster");
  await expect(clusters.first()).toBeVisible();
  const clustered = (await clusters.allTextContents()).reduce((n, t) => n + Number(t), 0);
  expect(clustered).toBe(4);
  await expect(page.locator('[title="Ann Bay"]')).toHaveCount(0);
  await expectAllInside(page);

  // a cluster zooms in and splits (a few clicks: Bay City's two are close together)
  const michigan = page.locator(
    '[title="Ann Bay"], [title="Ben Bay"], [title="Cat Saginaw"], [title="Dan Saginaw"]',
  );
  for (let i = 0; i < 5 && (await michigan.count()) === 0; i++) {
    const before = await clusters.count();
    await clusters.first().click();
    await expect
      .poll(async () => (await clusters.count()) !== before || (await michigan.count()) > 0)
      .toBe(true);
  }
  await expect(michigan.first()).toBeVisible();

  // the offline map still works: a marker opens its info window
  await page.goto("/contacts/map");
  await page.locator('[title="Eve York"]').click();
  await expect(page.getByTestId("map-info-window")).toContainText("eve@example.com");
});

test("a street style that loads is drawn", async ({ page, baseURL }) => {
  await registerWithLocatedContacts(page, baseURL!);
  let served = 0;
  // a tiny valid style stands in for OpenFreeMap (the machine has no internet)
  await page.route(STYLE_URL, (route) => {
    served++;
    return route.fulfill({
      contentType: "application/json",
      body: JSON.stringify({
        version: 8,
        sources: {},
        layers: [{ id: "bg", type: "background", paint: { "background-color": "#eef2e6" } }],
      }),
    });
  });
  await page.goto("/contacts/map");
  await expect(page.getByTestId("contact-map")).toHaveAttribute("data-basemap", "streets");
  expect(served).toBeGreaterThan(0);
  await expect(page.getByText("Street map unavailable")).toHaveCount(0);
  await expect(page.locator('[title="Fay Francisco"]')).toBeVisible();
  await expectAllInside(page);
});

test("radius search by keyboard alone: a contact picked by name is the centre", async ({ page, baseURL }) => {
  // the centre could only be set by clicking the map canvas: keyboard and screen-reader users could
  // not search by radius
  await registerWithLocatedContacts(page, baseURL!);
  await page.route("https://tiles.openfreemap.org/**", (route) => route.abort("internetdisconnected"));
  await page.goto("/contacts/map");
  await expect(page.getByRole("heading", { name: `Contact Map (${PEOPLE.length} contacts)` })).toBeVisible();
  const centre = page.getByLabel("Search around a contact");
  await centre.focus();
  await page.keyboard.type("Cat Saginaw (Saginaw, MI)");
  await expect(page.getByText(/^Center: 43\.\d{4}, -83\.\d{4}$/)).toBeVisible();
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Search radius (miles)")).toBeFocused();
  await page.keyboard.press("Control+A");
  await page.keyboard.type("20");
  await page.keyboard.press("Tab");
  await expect(page.getByRole("button", { name: "Search by Radius" })).toBeFocused();
  await page.keyboard.press("Enter");
  // Saginaw's two contacts (Bay City is about 13 miles away: its two as well), not New York or San Francisco
  await expect(page.getByText("Found 4 contacts within 20 miles")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Contact Map (4 contacts)" })).toBeVisible();
});

test("a business saved by its company alone is picked as the centre by its company", async ({
  page,
  baseURL,
}) => {
  // the centre picker named contacts "First Last, else email": a business from lead search (a company,
  // no person's name) was listed by its email, where the rest of the app names it by its company
  await registerWithLocatedContacts(page, baseURL!);
  // the way such a contact arrives: an import (lead search's or a file's) with no person's name
  const r = await page.request.post("/api/contacts/import", {
    data: {
      contacts: [
        {
          company: "Saginaw Bakery",
          email: "orders@saginaw-bakery.example.com",
          city: "Saginaw",
          state: "MI",
          postal_code: "48601",
          country: "United States",
        },
      ],
    },
    headers: { origin: baseURL! },
  });
  expect(r.ok(), await r.text()).toBe(true);
  await expect
    .poll(
      async () => ((await (await page.request.get("/api/contacts/map")).json()).contacts as unknown[]).length,
      { timeout: 30_000 },
    )
    .toBe(PEOPLE.length + 1);
  await page.route("https://tiles.openfreemap.org/**", (route) => route.abort("internetdisconnected"));
  await page.goto("/contacts/map");
  const centre = page.getByLabel("Search around a contact");
  await centre.focus();
  await page.keyboard.type("Saginaw Bakery (Saginaw, MI)");
  await expect(page.getByText(/^Center: 43\.\d{4}, -83\.\d{4}$/)).toBeVisible();
});
