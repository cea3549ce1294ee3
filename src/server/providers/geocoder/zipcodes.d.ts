declare module "zipcodes" {
  interface ZipInfo {
    zip: string;
    latitude: number;
    longitude: number;
    city: string;
    state: string;
    country: string;
  }
  const zipcodes: {
    states: { full: Record<string, string>; abbr: Record<string, string> };
    lookup(zip: string | number): ZipInfo | undefined;
    lookupByName(city: string, state: string): ZipInfo[];
  };
  export default zipcodes;
}
