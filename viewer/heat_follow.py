"""The heatmap and the figures panel of the viewer, kept current: the layout analysis asked
of a `heatmap.Analyser` (a worker thread in the window, handed over by `poll()`; synchronous in
tests) and drawn when it comes, the model-eyes field drawn again after edits and moves. A
mixin of `interact.Controller`."""

from __future__ import annotations

from .heatmap import EYES, chosen_heat


class HeatAndFigures:
    """The heatmap shown (`heat_name`), the newest analysis and the figures panel."""

    def show_heatmap(self, name: str | None) -> None:
        """Show a heatmap field (a layout-analysis field, or 'eyes'); None hides it."""
        self.heat_name = name
        self._update_heat()

    def _update_heat(self) -> None:
        """Draw the chosen field for the scene shown (asking for its analysis when needed)."""
        name, world, scene = self.heat_name, self.view.world, self.view.scene
        if name is None:
            if self.view.heatmap is not None:
                self.view.set_heatmap(None)
            return
        known = self.analysis_scene is scene and (self.analysis or self.analysis_error)
        heat = chosen_heat(world, scene, name, self.analysis if known else None,
                           self.analysis_error if known else None)
        if heat is None:
            if not self.analyser.pending_for(scene):
                self.analyser.request(scene)  # at once, or handed over by a later poll()
            if self.analyser.pending:
                self.say("analysing the layout ...")
            return
        self.view.set_heatmap(heat.field, heat.title, heat.notes)

    def _analysed(self, scene, analysis, error: str | None) -> None:
        """The Analyser's report: keep it, redraw the heatmap and the figures."""
        if scene is not self.view.scene:
            return  # about a scene no longer shown
        self.analysis, self.analysis_scene, self.analysis_error = analysis, scene, error
        if self.edit is not None:
            self.edit.live.analysis = analysis
        if self.heat_name not in (None, EYES):
            self._update_heat()
        if self.message == "analysing the layout ...":
            self.say()
        self.update_figures()

    def world_edited(self) -> None:
        """Edit mode redrew the world: refresh what depends on it (the figures follow when
        the analysis it asked for arrives)."""
        if self.heat_name == EYES:
            self._update_heat()
        self.update_figures()

    def update_figures(self) -> None:
        """The figures panel (edit mode's)."""
        if self.edit is not None:
            self.edit.show_figures()

    def poll(self) -> bool:
        """Each frame: hand over a finished analysis; True when one came."""
        return self.analyser.poll()

    def finish(self) -> None:
        """Wait for an analysis in progress and hand it over (headless runs, tests)."""
        self.analyser.poll(wait=True)
