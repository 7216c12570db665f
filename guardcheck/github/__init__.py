"""GitHub for `review`: the pull request's sticky comment, and the composite action's steps.

    outcome = post_review_comment(markdown, os.environ)

Standard library only (urllib): the comment is one list, one create or one update. A
missing token, a fork's read-only token (403), a server error or no network is a
warning in `outcome.message`, never an exception: the review's findings decide the
exit code, not the comment. The token is sent in one header and never printed.
"""

from __future__ import annotations

from guardcheck.github.sticky import MARKER, CommentOutcome, post_review_comment

__all__ = ["MARKER", "CommentOutcome", "post_review_comment"]
