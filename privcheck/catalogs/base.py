"""The interface a catalog back-end implements.

A catalog knows a dataset (by its own reference: a DataHub URN, an Iceberg ``NS.TABLE``), its
columns and the tags its owners put on them; privcheck reads those, builds the policy (tags win
over the base policy's roles), checks, and writes the Verdict back. The back-end's SDK is an
optional extra: a back-end imports it only inside its methods and raises ``missing_extra`` when
it is absent, so that listing the back-ends imports no SDK.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from privcheck.errors import DataError

if TYPE_CHECKING:
    from privcheck.api import Verdict


@dataclass(frozen=True)
class CatalogDataset:
    """What a catalog says about a dataset: its columns in order and each column's tags (tag
    names as the catalog spells them, e.g. DataHub's ``urn:li:tag:PII``)."""

    reference: str
    columns: list[str]
    tags: dict[str, list[str]] = field(default_factory=dict)


def missing_extra(package: str, extra: str) -> DataError:
    """The one line for a back-end whose SDK is not installed."""
    return DataError(
        f"this needs the {package} package, which is not installed; "
        f"install it with: pip install 'privcheck[{extra}]'"
    )


class Catalog(ABC):
    """A catalog back-end: read a dataset's schema and tags, write a verdict."""

    #: the back-end's name (``--catalog NAME``)
    name: ClassVar[str]
    #: one line for ``privcheck plugins``
    description: ClassVar[str] = ""

    @abstractmethod
    def read_dataset(self, reference: str) -> CatalogDataset:
        """The dataset's columns and column tags; ``DataError`` when the catalog does not know
        ``reference``."""

    @abstractmethod
    def write_verdict(self, reference: str, verdict: Verdict) -> None:
        """Record ``verdict`` against the dataset, where the catalog shows quality results."""
