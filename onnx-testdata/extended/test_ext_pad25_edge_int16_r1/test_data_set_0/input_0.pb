BxJ
PøÏÉue•‚9>