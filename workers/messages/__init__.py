"""What Atlas says, platform-neutral: the sentences both chat platforms show, written once with slots for markup."""
