## The site profile R starts with in the sandbox (R_PROFILE; evaluator/languages/r.py).
## First the system's own site profile, as a plain run reads it. Then one change, which only
## shows where no process can start: R's utils package asks Sys.which("uname") when it loads
## (utils:::.osVersion), and Sys.which runs `which` through popen, which fails in the
## sandbox and stops utils (and stats, graphics...) from loading at all. Here a Sys.which
## whose popen fails answers "" for each name, as for a program not found; where popen
## works (a plain run) it answers exactly as R's own.
local({
    site <- file.path(R.home("etc"), "Rprofile.site")
    if (file.exists(site)) sys.source(site, envir = globalenv())
    own <- base::Sys.which
    tolerant <- function(names) tryCatch(own(names), error = function(e) {
        found <- character(length(names))
        names(found) <- names
        found
    })
    environment(tolerant) <- environment(own)
    unlockBinding("Sys.which", baseenv())
    assign("Sys.which", tolerant, envir = baseenv())
    lockBinding("Sys.which", baseenv())
})
