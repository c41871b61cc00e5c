; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

declare void @"ClassifyTiles"()

declare void @"MaterialOpaque"()

declare void @"MaterialMetal"()

declare void @"MaterialFoliage"()

declare void @"MaterialEmissive"()

declare void @"FallbackMaterial"()

declare void @"SkyTiles"()

declare void @"DebugCountTiles"()

!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.entryPoints = !{ !2, !21, !27, !30, !33, !36, !38, !43, !46 }
!wgc.spirv.entryPoints = !{ !47, !48, !49, !50, !51, !52, !53, !54 }
!wgc.experimental.tags = !{ !55, !56 }
!llvm.ident = !{ !57 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ null, !"", null, null, null }
!3 = !{ !"ClassifyTiles", i32 0 }
!4 = !{ i32 480, i32 270, i32 1 }
!5 = !{ i32 0, i32 5, i32 2 }
!6 = !{ i32 0, i32 8, i32 1, !5, i32 2, i32 4 }
!7 = !{ i32 1, i32 97, i32 2, !6 }
!8 = !{ !7 }
!9 = !{ i32 0, i32 12, i32 2, i32 4 }
!10 = !{ !"Material", i32 0 }
!11 = !{ i32 1, i32 22, i32 2, !9, i32 3, i32 32, i32 5, i32 32, i32 6, i1 true, i32 0, !10, i32 7, i32 1 }
!12 = !{ !"FallbackMaterial", i32 0 }
!13 = !{ i32 1, i32 6, i32 2, !9, i32 3, i32 0, i32 4, i32 0, i32 0, !12 }
!14 = !{ !"SkyTiles", i32 0 }
!15 = !{ i32 1, i32 10, i32 3, i32 1, i32 0, !14 }
!16 = !{ !"DebugOverlay", i32 0 }
!17 = !{ i32 1, i32 26, i32 3, i32 1, i32 5, i32 -1, i32 6, i1 true, i32 0, !16, i32 7, i32 1 }
!18 = !{ !11, !13, !15, !17 }
!19 = !{ i32 8, i32 8, i32 1 }
!20 = !{ i32 8, i32 15, i32 13, i32 1, i32 15, !3, i32 16, i32 -1, i32 22, !4, i32 20, !8, i32 21, !18, i32 4, !19 }
!21 = !{ void ()* @"ClassifyTiles", !"ClassifyTiles", null, null, !20 }
!22 = !{ !"Material", i32 1 }
!23 = !{ i32 1, i32 65, i32 2, !9, i32 3, i32 4 }
!24 = !{ !23 }
!25 = !{ i32 64, i32 1, i32 1 }
!26 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !22, i32 16, i32 -1, i32 20, !24, i32 4, !25 }
!27 = !{ void ()* @"MaterialOpaque", !"MaterialOpaque", null, null, !26 }
!28 = !{ !"Material", i32 2 }
!29 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !28, i32 16, i32 -1, i32 20, !24, i32 4, !25 }
!30 = !{ void ()* @"MaterialMetal", !"MaterialMetal", null, null, !29 }
!31 = !{ !"Material", i32 3 }
!32 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !31, i32 16, i32 -1, i32 20, !24, i32 4, !25 }
!33 = !{ void ()* @"MaterialFoliage", !"MaterialFoliage", null, null, !32 }
!34 = !{ !"Material", i32 4 }
!35 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !34, i32 16, i32 -1, i32 20, !24, i32 4, !25 }
!36 = !{ void ()* @"MaterialEmissive", !"MaterialEmissive", null, null, !35 }
!37 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !12, i32 16, i32 -1, i32 20, !24, i32 4, !25 }
!38 = !{ void ()* @"FallbackMaterial", !"FallbackMaterial", null, null, !37 }
!39 = !{ i32 1, i32 9, i32 3, i32 64 }
!40 = !{ !39 }
!41 = !{ i32 1, i32 1, i32 1 }
!42 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !14, i32 16, i32 -1, i32 20, !40, i32 4, !41 }
!43 = !{ void ()* @"SkyTiles", !"SkyTiles", null, null, !42 }
!44 = !{ !"DebugOverlay", i32 1 }
!45 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !44, i32 16, i32 -1, i32 20, !40, i32 4, !41 }
!46 = !{ void ()* @"DebugCountTiles", !"DebugCountTiles", null, null, !45 }
!47 = !{ void ()* @"ClassifyTiles", !"ClassifyTiles" }
!48 = !{ void ()* @"MaterialOpaque", !"MaterialOpaque" }
!49 = !{ void ()* @"MaterialMetal", !"MaterialMetal" }
!50 = !{ void ()* @"MaterialFoliage", !"MaterialFoliage" }
!51 = !{ void ()* @"MaterialEmissive", !"MaterialEmissive" }
!52 = !{ void ()* @"FallbackMaterial", !"FallbackMaterial" }
!53 = !{ void ()* @"SkyTiles", !"SkyTiles" }
!54 = !{ void ()* @"DebugCountTiles", !"DebugOverlay" }
!55 = !{ !"NodeMaxLoopIterations", i32 131072 }
!56 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!57 = !{ !"wgc 0.1.0" }
