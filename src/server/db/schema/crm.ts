// Tables of the crm feature (filled in by its issue).
export {};
