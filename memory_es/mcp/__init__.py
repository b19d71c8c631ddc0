"""The MCP server (the optional extra ``memory-es[mcp]``): ``memory-es mcp``.

``tools`` holds what each tool and resource does, over the public ``Memory`` API and
without the SDK; ``server`` describes them to the model and serves them on the official
``mcp`` SDK over stdio or streamable HTTP; ``tokens`` maps HTTP bearer tokens to
principals. Nothing here is imported until the command runs.
"""
